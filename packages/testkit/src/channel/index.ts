export {
  type ChannelContractDriver,
  type ChannelContractSubject,
  type ContractMessage,
  describeChannelContract,
} from './channel-contract.ts';
export {
  type CreateTestChannelOptions,
  createTestChannel,
  TEST_CHANNEL_CAPABILITIES,
  type TestChannel,
  type TestDelivery,
  type TestMessage,
} from './create-test-channel.ts';
