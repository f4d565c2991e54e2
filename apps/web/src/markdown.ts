import MarkdownIt from 'markdown-it';

const allowedLink = /^(?:https?:\/\/|mailto:)/i;

/**
 * Markdown for model text, which is untrusted: raw HTML is escaped (`html: false`), only http,
 * https and mailto links survive, and images are not rendered at all, because an image URL
 * written by a prompt-injected model could carry conversation data to a third party on load.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
markdown.disable('image');
markdown.validateLink = (url) => allowedLink.test(url.trim());

const renderToken = markdown.renderer.renderToken.bind(markdown.renderer);
markdown.renderer.rules.link_open = (tokens, index, options) => {
  const token = tokens[index];
  token?.attrSet('target', '_blank');
  token?.attrSet('rel', 'noopener noreferrer');
  return renderToken(tokens, index, options);
};

/** Renders Markdown to an HTML string in which every piece of the input is escaped or validated. */
export function renderMarkdown(text: string): string {
  return markdown.render(text);
}
