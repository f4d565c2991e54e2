/** A recording in progress; `stop` ends it and gives the audio, `cancel` throws it away. */
export interface VoiceRecording {
  mimeType: string;
  stop(): Promise<Blob>;
  cancel(): void;
}

/** Opus in WebM (Chromium, Firefox) or Ogg: both are read from their bytes by the server. */
const PREFERRED_TYPES = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm', 'audio/ogg'];

/**
 * Starts recording from the microphone. Rejects with a message fit to show when the browser has
 * no recorder, no microphone, or the person (or a policy) denied the permission.
 */
export async function startVoiceRecording(): Promise<VoiceRecording> {
  if (typeof MediaRecorder === 'undefined' || !navigator.mediaDevices?.getUserMedia) {
    throw new Error('This browser cannot record audio here (a secure https:// page is needed).');
  }
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'NotAllowedError' || name === 'SecurityError') {
      throw new Error(
        'Microphone access was denied. Allow the microphone for this site to record voice notes.',
      );
    }
    if (name === 'NotFoundError') throw new Error('No microphone was found.');
    throw new Error('The microphone could not be opened.');
  }
  const mimeType = PREFERRED_TYPES.find((type) => MediaRecorder.isTypeSupported(type)) ?? '';
  const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : {});
  const chunks: Blob[] = [];
  recorder.ondataavailable = (event) => {
    if (event.data.size > 0) chunks.push(event.data);
  };
  const release = () => {
    for (const track of stream.getTracks()) track.stop();
  };
  recorder.start(250);
  return {
    mimeType: recorder.mimeType || mimeType,
    stop: () =>
      new Promise<Blob>((resolve) => {
        recorder.onstop = () => {
          release();
          resolve(new Blob(chunks, { type: recorder.mimeType || mimeType || 'audio/webm' }));
        };
        recorder.stop();
      }),
    cancel: () => {
      recorder.onstop = release;
      if (recorder.state !== 'inactive') recorder.stop();
      else release();
    },
  };
}
