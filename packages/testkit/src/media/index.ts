export { type BombFilterChain, makeFilterChainBombPdf } from './make-filter-chain-bomb-pdf.ts';
export { makeOggOpusVoiceNote } from './make-ogg-opus.ts';
export { makeCompressedBombPdf, makePdf } from './make-pdf.ts';
export { makePng } from './make-png.ts';
