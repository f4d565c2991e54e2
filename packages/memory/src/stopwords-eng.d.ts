/**
 * The English list alone from the `stopword` package. Its main entry builds the lists of all 62
 * languages (about 1.8 MB of heap that every full collection walks); only English is used here.
 */
declare module 'stopword/src/stopwords_eng.js' {
  export const eng: string[];
}
