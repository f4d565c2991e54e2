import { useEffect, useState } from 'preact/hooks';
import { encodeQr, type QrDrawing } from '../qr-path.ts';

export interface QrCodeProps {
  value: string;
  label: string;
}

/** Four modules of light margin around the code, as scanners expect. */
const QUIET_ZONE = 4;

/** A QR code drawn in the page as SVG; dark on white in either colour scheme so phones can read it. */
export function QrCode({ value, label }: QrCodeProps) {
  const [drawing, setDrawing] = useState<QrDrawing & { value: string }>();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    let current = true;
    encodeQr(value).then(
      (encoded) => {
        if (!current) return;
        setDrawing({ ...encoded, value });
        setProblem(undefined);
      },
      (error: unknown) => {
        if (current) setProblem(`The QR code could not be drawn: ${(error as Error).message}`);
      },
    );
    return () => {
      current = false;
    };
  }, [value]);

  if (problem !== undefined) {
    return (
      <p class="channels-problem" role="alert">
        {problem}
      </p>
    );
  }
  // Until the encoder has loaded; a rotated QR keeps showing the previous one for those moments.
  if (drawing === undefined) return <p class="channels-muted">Drawing the QR code…</p>;
  const side = drawing.size + 2 * QUIET_ZONE;
  return (
    <svg
      class="qr-code"
      data-testid="qr-code"
      data-state={drawing.value === value ? 'current' : 'stale'}
      role="img"
      aria-label={label}
      viewBox={`${-QUIET_ZONE} ${-QUIET_ZONE} ${side} ${side}`}
      shape-rendering="crispEdges"
      xmlns="http://www.w3.org/2000/svg"
    >
      <rect x={-QUIET_ZONE} y={-QUIET_ZONE} width={side} height={side} fill="#ffffff" />
      <path d={drawing.path} fill="#000000" />
    </svg>
  );
}
