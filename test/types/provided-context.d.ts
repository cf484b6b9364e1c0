// What the globalSetup files of vitest.config.ts provide to the tests (inject()).
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file: URL of the webhook sender thread's entry, bundled for this run (test/setup/sender-thread.ts). */
    senderThread: string;
    /** The folder where this run's packed install is made once (test/setup/packed-template.ts). */
    packedTemplate: string;
    /** The image the container project's files run, built once (test/setup/container-image.ts). */
    containerImage: string;
    /** Why podman cannot run here ('' when it can): the container project's files skip with it. */
    containerSkip: string;
  }
}
