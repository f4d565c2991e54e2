/**
 * `text` with the user and password taken out of every URL in it (`https://user:secret@host/v1`
 * becomes `https://host/v1`). Doctor output is pasted into issues and chats; a model, Qdrant or
 * MCP URL may carry its credentials, and error messages from the libraries quote the URL whole.
 */
export function withoutUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z\d+.-]*:\/\/)[^\s/?#@]*@/giu, '$1');
}
