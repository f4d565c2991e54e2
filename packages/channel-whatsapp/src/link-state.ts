import qrcodeTerminal from 'qrcode-terminal';

export type WhatsAppLinkStatus =
  /** Not started (or stopped by `stop()`). */
  | 'idle'
  | 'connecting'
  /** Waiting for a person to scan `qr` or type `pairingCode` on the phone. */
  | 'awaiting_link'
  | 'open'
  /** The socket closed; a new one is due in `nextAttemptInMs`. */
  | 'reconnecting'
  /** WhatsApp ended the link (logged out, forbidden, device mismatch): link again. */
  | 'needs_relink'
  /** Another client took over this session; not retried, so the two do not fight. */
  | 'replaced';

/** What an operator needs to see about the link, e.g. in the web admin view. */
export interface WhatsAppLinkState {
  status: WhatsAppLinkStatus;
  /** Raw QR payload while awaiting a link; render it as a QR code. */
  qr?: string;
  /** 8-character code to enter under "Link with phone number instead". */
  pairingCode?: string;
  account?: { phoneJid?: string; lidJid?: string };
  lastDisconnect?: { statusCode?: number; at: string };
  nextAttemptInMs?: number;
  detail?: string;
  updatedAt: string;
}

/** Renders a QR payload as terminal block characters (what a person scans from the console). */
export function renderQrForTerminal(qr: string): Promise<string> {
  return new Promise((resolve) => {
    qrcodeTerminal.generate(qr, { small: true }, resolve);
  });
}

/** Default `onQr`: prints the QR code to stdout with a one-line hint. */
export async function printQrToTerminal(qr: string): Promise<void> {
  const rendered = await renderQrForTerminal(qr);
  process.stdout.write(`\nScan with WhatsApp → Settings → Linked devices → Link a device:\n${rendered}\n`);
}
