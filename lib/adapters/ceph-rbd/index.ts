/** Ceph RBD implementation of the StorageFencer port: the OSD blocklist through the ceph-mgr `restful` API. */
export { CephRbdStorageFencer, type CephRbdStorageFencerProps } from './ceph-storage-fencer.js';
export { BlocklistDialect } from './commands.js';
export { CephApiError, CephInputError, NoAddressToFenceError } from './errors.js';
export { CEPH_KEY_PLACEHOLDER, type ReadSecretString, withCephKeyFromSecret } from './key-secret.js';
export type { CephFencerLogger } from './logger.js';
export { isRbdDriver, RBD_CSI_DRIVER } from './plan.js';
export { RestfulClient, type RestfulConnection } from './restful-client.js';
export {
  CEPH_ENV,
  type CephRbdSettings,
  type CephRbdSettingsInput,
  cephRbdSettingsFromEnv,
  cephRbdSettingsSchema,
  parseCephRbdSettings,
} from './settings.js';
