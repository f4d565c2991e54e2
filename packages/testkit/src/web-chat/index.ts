export { type ReceivedReply, WebChatClient, type WebChatClientOptions } from './web-chat-client.ts';
