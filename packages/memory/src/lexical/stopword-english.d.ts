/** The `stopword` package's English list file (english-stop-words.ts says why it is read alone). */
declare module 'stopword/src/stopwords_eng.js' {
  export const eng: string[];
}
