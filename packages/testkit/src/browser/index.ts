export { type LaunchBrowserOptions, launchBrowser } from './launch-browser.ts';
export { newPhonePage, PHONE_VIEWPORT } from './new-phone-page.ts';
