/**
 * The cloud providers' error codes, for rules: the table itself is vocabulary in `kube/messages/cloud-errors.ts` so
 * that readers can recognise a pasted line by it too; rules import it from here, with the other message tables.
 */
export {
  authorizationDenied,
  classifyCloudError,
  GENERIC_CAPACITY,
  offeringsWithoutCapacity,
  retryOutcome,
  type RetryOutcome,
  type CloudProvider,
  type LaunchFamily,
} from '../../kube/messages/cloud-errors.js';
