export {
  type CreateTestChannelOptions,
  createTestChannel,
  type TestChannel,
  type TestDelivery,
  type TestMessage,
} from './create-test-channel.ts';
