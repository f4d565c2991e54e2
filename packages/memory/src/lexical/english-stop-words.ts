/// <reference path="./stopword-english.d.ts" />
import { eng } from 'stopword/src/stopwords_eng.js';

/**
 * The `stopword` package's English list ("what", "my", "did"…), read from its own file: the
 * package's main entry builds the lists of all 62 languages, about 1.8 MB of heap that every full
 * collection walks, and only English is used.
 */
export const ENGLISH_STOP_WORDS: readonly string[] = eng;
