export { compilesOf } from './compiles-of.ts';
export { mountSmallVolume, SMALL_VOLUME_NEEDS_ROOT, type SmallVolume } from './small-volume.ts';
