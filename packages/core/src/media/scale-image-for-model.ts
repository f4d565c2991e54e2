import { NexusError } from '@nexus/protocol';

/**
 * The longest side of an image sent to a model. Anthropic scales anything larger down to about
 * this before the model sees it (and refuses sides over 8000 px), OpenAI's high detail works on
 * 2048 px at most: 1568 px loses nothing either provider would have used.
 */
export const MODEL_IMAGE_MAX_SIDE = 1568;
/** Bytes of one image sent to a model: Anthropic's 5 MB cap applies to the base64 text. */
export const MODEL_IMAGE_MAX_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);
/** Pixels decoded at most (a 100-megapixel photo): a small file claiming more is refused unread. */
export const MODEL_IMAGE_MAX_INPUT_PIXELS = 100_000_000;

const PASSED_AS_IS = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

/** An image's bytes and type (`TurnImage` of prepare-turn-media.ts). */
interface ModelImage {
  bytes: Uint8Array;
  mediaType: string;
}

/**
 * An image as the provider accepts it: at most MODEL_IMAGE_MAX_SIDE on its longest side and
 * MODEL_IMAGE_MAX_BYTES, re-encoded as JPEG when it had to change. Decoding runs in libvips'
 * threads (sharp, imported on first use), never on the event loop. A photo of 20 MB becomes a
 * few hundred KB, which is what a run carries to a worker and what is kept on disk.
 */
export async function scaleImageForModel(image: ModelImage): Promise<ModelImage> {
  const { default: sharp } = await import('sharp');
  sharp.cache(false);
  const open = () =>
    sharp(image.bytes, { limitInputPixels: MODEL_IMAGE_MAX_INPUT_PIXELS, failOn: 'error', animated: false });
  let metadata: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    metadata = await open().metadata();
  } catch (error) {
    // sharp reads the dimensions first and refuses past `limitInputPixels` before decoding.
    if (/pixel limit/i.test(String((error as Error).message))) throw tooManyPixels();
    throw new NexusError({
      code: 'attachment_corrupt',
      message: 'the image could not be decoded',
      cause: error,
    });
  }
  const width = metadata.autoOrient?.width ?? metadata.width ?? 0;
  const height = metadata.autoOrient?.height ?? metadata.height ?? 0;
  if (width * height > MODEL_IMAGE_MAX_INPUT_PIXELS) throw tooManyPixels();
  const fits =
    Math.max(width, height) <= MODEL_IMAGE_MAX_SIDE &&
    image.bytes.byteLength <= MODEL_IMAGE_MAX_BYTES &&
    PASSED_AS_IS.has(image.mediaType) &&
    (metadata.orientation ?? 1) === 1;
  if (fits) return image;
  for (const quality of [85, 70, 50]) {
    let bytes: Buffer;
    try {
      bytes = await open()
        .autoOrient()
        .resize({
          width: MODEL_IMAGE_MAX_SIDE,
          height: MODEL_IMAGE_MAX_SIDE,
          fit: 'inside',
          withoutEnlargement: true,
        })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality })
        .toBuffer();
    } catch (error) {
      throw new NexusError({
        code: 'attachment_corrupt',
        message: 'the image could not be decoded',
        cause: error,
      });
    }
    if (bytes.byteLength <= MODEL_IMAGE_MAX_BYTES)
      return { bytes: new Uint8Array(bytes), mediaType: 'image/jpeg' };
  }
  throw new NexusError({
    code: 'attachment_unsupported',
    message: 'it stays too large for the model even scaled down.',
  });
}

function tooManyPixels(): NexusError {
  return new NexusError({ code: 'attachment_unsupported', message: 'it has more pixels than I can open.' });
}
