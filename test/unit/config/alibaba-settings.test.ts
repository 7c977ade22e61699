import { describe, expect, it } from 'vitest';
import { parseAlibabaSettings } from '../../../lib/config/alibaba-settings.js';
import { ValidationError } from '../../../lib/domain/errors.js';

describe('parseAlibabaSettings', () => {
  it('is off without a region, and reads the region, endpoint, tag key and stopped mode', () => {
    expect(parseAlibabaSettings({ AWS_REGION: 'us-east-1' })).toBeUndefined();
    expect(
      parseAlibabaSettings({
        ALIBABA_CLOUD_REGION: 'cn-hangzhou',
        FENCER_ECS_ENDPOINT: 'http://127.0.0.1:4566',
        FENCER_ECS_CLUSTER_TAG_KEY: 'ack.aliyun.com',
        FENCER_ECS_STOPPED_MODE: 'StopCharging',
      }),
    ).toEqual({
      region: 'cn-hangzhou',
      endpoint: 'http://127.0.0.1:4566',
      clusterTagKey: 'ack.aliyun.com',
      stoppedMode: 'StopCharging',
    });
    expect(parseAlibabaSettings({ FC_REGION: 'cn-shanghai' })).toEqual({ region: 'cn-shanghai' });
  });

  it('refuses a malformed region or stopped mode with a clear error', () => {
    expect(() => parseAlibabaSettings({ ALIBABA_CLOUD_REGION: 'Hangzhou' })).toThrow(ValidationError);
    expect(() =>
      parseAlibabaSettings({ ALIBABA_CLOUD_REGION: 'cn-hangzhou', FENCER_ECS_STOPPED_MODE: 'Hibernate' }),
    ).toThrow(/FENCER_ECS_STOPPED_MODE/);
  });
});
