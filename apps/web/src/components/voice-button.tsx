import { useEffect, useRef, useState } from 'preact/hooks';
import { startVoiceRecording, type VoiceRecording } from '../voice-recorder.ts';
import { MicrophoneIcon, StopIcon } from './icons.tsx';

export interface VoiceButtonProps {
  onRecorded: (audio: Blob) => Promise<void>;
  onProblem: (message: string | undefined) => void;
}

/** Record / stop: stopping sends the recording as a voice note; Cancel throws it away. */
export function VoiceButton({ onRecorded, onProblem }: VoiceButtonProps) {
  const [phase, setPhase] = useState<'idle' | 'starting' | 'recording' | 'sending'>('idle');
  const [seconds, setSeconds] = useState(0);
  const recordingRef = useRef<VoiceRecording>();
  useEffect(() => () => recordingRef.current?.cancel(), []);
  useEffect(() => {
    if (phase !== 'recording') return;
    const startedAt = Date.now();
    setSeconds(0);
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - startedAt) / 1000)), 250);
    return () => clearInterval(timer);
  }, [phase]);

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

  const cancel = () => {
    recordingRef.current?.cancel();
    recordingRef.current = undefined;
    setPhase('idle');
  };

  const recording = phase === 'recording';
  return (
    <>
      {recording && (
        <span class="recording-bar">
          <span class="recording-time" data-testid="recording-time" role="timer" aria-label="Recording time">
            {Math.floor(seconds / 60)}:{String(seconds % 60).padStart(2, '0')}
          </span>
          <button type="button" class="secondary" data-testid="cancel-recording" onClick={cancel}>
            Cancel
          </button>
        </span>
      )}
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
    </>
  );
}
