import { useEffect, useRef, useState } from 'preact/hooks';
import { startVoiceRecording, type VoiceRecording } from '../voice-recorder.ts';
import { MicrophoneIcon, StopIcon } from './icons.tsx';

export interface VoiceButtonProps {
  onRecorded: (audio: Blob) => Promise<void>;
  onProblem: (message: string | undefined) => void;
}

/** Record / stop: stopping sends the recording as a voice note. */
export function VoiceButton({ onRecorded, onProblem }: VoiceButtonProps) {
  const [phase, setPhase] = useState<'idle' | 'starting' | 'recording' | 'sending'>('idle');
  const recordingRef = useRef<VoiceRecording>();
  useEffect(() => () => recordingRef.current?.cancel(), []);

  const toggle = async () => {
    if (phase === 'idle') {
      setPhase('starting');
      onProblem(undefined);
      try {
        recordingRef.current = await startVoiceRecording();
        setPhase('recording');
      } catch (error) {
        setPhase('idle');
        onProblem(error instanceof Error ? error.message : 'Recording could not start.');
      }
      return;
    }
    if (phase !== 'recording' || recordingRef.current === undefined) return;
    const recording = recordingRef.current;
    recordingRef.current = undefined;
    setPhase('sending');
    try {
      await onRecorded(await recording.stop());
    } catch (error) {
      onProblem(error instanceof Error ? error.message : 'The voice note could not be sent.');
    } finally {
      setPhase('idle');
    }
  };

  const recording = phase === 'recording';
  return (
    <button
      type="button"
      class={`secondary icon-button${recording ? ' recording' : ''}`}
      data-testid="record-button"
      data-phase={phase}
      aria-pressed={recording}
      aria-label={recording ? 'Stop and send the voice note' : 'Record a voice note'}
      title={recording ? 'Stop and send' : 'Record a voice note'}
      disabled={phase === 'starting' || phase === 'sending'}
      onClick={() => void toggle()}
    >
      {recording ? <StopIcon /> : <MicrophoneIcon />}
    </button>
  );
}
