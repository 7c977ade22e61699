/** Why a publish cannot proceed, in CSI terms: shared by the EBS and the Alibaba disk backends. */
export class PublishConflict extends Error {
  override readonly name = 'PublishConflict';
}
export class VolumeMissing extends Error {
  override readonly name = 'VolumeMissing';
}
