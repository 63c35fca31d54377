// One Sandbank for the whole run (in memory, on a free port): Jest starts it before the first test
// file and stops it after the last. Each test file signs up a merchant of its own with sandbankMerchant().
export default {
  globalSetup: 'sandbank/testing/jest-setup',
  globalTeardown: 'sandbank/testing/jest-teardown',
};
