/** Ceph RBD implementation of the StorageFencer port: the OSD blocklist through the ceph-mgr `restful` API. */
export { CephRbdStorageFencer, type CephRbdStorageFencerProps } from './ceph-storage-fencer.js';
export { BlocklistDialect } from './commands.js';
export { CephApiError, CephInputError, NoAddressToFenceError } from './errors.js';
export { CEPH_KEY_PLACEHOLDER, type ReadSecretString, withCephKeyFromSecret } from './key-secret.js';
export type { CephFencerLogger } from './logger.js';
export {
  NetworkFenceStorageFencer,
  type NetworkFenceStorageFencerProps,
  networkFenceName,
} from './network-fence-storage-fencer.js';
export { isRbdDriver, RBD_CSI_DRIVER } from './plan.js';
export { RestfulClient, type RestfulConnection } from './restful-client.js';
export {
  CEPH_ENV,
  type CephNetworkFenceSettings,
  type CephRbdSettings,
  type CephRbdSettingsInput,
  cephNetworkFenceSettingsFromEnv,
  cephRbdSettingsFromEnv,
  cephRbdSettingsSchema,
  parseCephRbdSettings,
} from './settings.js';
