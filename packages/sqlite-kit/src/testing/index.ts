export { mountSmallVolume, SMALL_VOLUME_NEEDS_ROOT, type SmallVolume } from './small-volume.ts';
