import { useState } from 'preact/hooks';
import { remoteImageHost } from '../markdown/safe-href.ts';

/**
 * An image the model linked to. Fetching it would tell its host that this conversation happened
 * (and a prompt-injected model can put conversation text in the URL), so it loads only when the
 * person asks, after being shown which host it comes from.
 */
export function RemoteImage({ href, alt }: { href: string; alt: string }) {
  const [load, setLoad] = useState(false);
  const host = remoteImageHost(href);
  const label = alt.trim() || 'Image';
  if (host === undefined) return <em class="image-blocked">{label}</em>;
  if (load)
    return (
      <img class="remote-image" src={href.trim()} alt={label} referrerpolicy="no-referrer" loading="lazy" />
    );
  return (
    <button
      type="button"
      class="image-placeholder"
      data-testid="image-placeholder"
      onClick={() => setLoad(true)}
    >
      <span class="image-placeholder-alt">{label}</span>
      <span class="image-placeholder-host">Load image from {host}</span>
    </button>
  );
}
