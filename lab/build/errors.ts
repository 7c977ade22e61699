/** A lab component could not be built or installed. Its message is one line naming the component and its log. */
export class LabBuildError extends Error {
  override readonly name = 'LabBuildError';
}

/** A lab component did not start or did not become ready in time. Names the component and its log. */
export class LabStartError extends Error {
  override readonly name = 'LabStartError';
}
