/**
 * Which CRDs karpenter-object-rejected judges against, in order: `--crds`, CRDs in the input (a dump, a repository,
 * the live cluster), else those of the detected Karpenter version from its release (cached). The snapshot is told,
 * or told why there are none, before rules run; rules never fetch anything.
 */
import { releaseCrds } from '../loaders/crd-download.js';
import { readCrdPath } from '../loaders/crd-files.js';
import { isKarpenterCrd } from '../snapshot/crd/crds.js';
import { KIND } from '../kube/kinds.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { formatVersion, versionLabel } from '../kube/version.js';
import { UsageError } from './errors.js';
import { pushAll } from '../kube/lists.js';

const ABSENT = 'KarpenterCRDs';

/** `judged`: a rule of this run judges objects against CRDs (no download otherwise). */
export async function provideCrds(snapshot: Snapshot, opts: { crds?: string; crdDownload?: boolean }, judged: boolean): Promise<void> {
  if (opts.crds) {
    let read;
    try {
      read = readCrdPath(opts.crds);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    pushAll(snapshot.skipped, read.skipped);
    const karpenter = read.crds.filter(isKarpenterCrd);
    if (karpenter.length) snapshot.useCrds(karpenter, `--crds ${opts.crds}`);
    else
      snapshot.denied.set(
        ABSENT,
        `--crds ${opts.crds} holds no CustomResourceDefinition of a Karpenter API group (karpenter.sh, karpenter.k8s.aws, karpenter.azure.com)`,
      );
    return;
  }
  if (snapshot.has(ABSENT) || !judged || !(snapshot.has('NodePool') || snapshot.has('NodeClaim') || snapshot.has('NodeClass'))) return;
  if (opts.crdDownload === false) {
    snapshot.denied.set(ABSENT, 'no Karpenter CRDs in the input and --no-crd-download is set: pass --crds FILE|DIR (CRD manifests or the karpenter-crd chart)');
    return;
  }
  if (snapshot.all(KIND.AKSNodeClass).length && !snapshot.all(KIND.EC2NodeClass).length) {
    snapshot.denied.set(
      ABSENT,
      "no Karpenter CRDs in the input, and only the AWS provider's release CRDs can be downloaded: pass --crds FILE|DIR with the Azure provider's CRDs",
    );
    return;
  }
  const version = snapshot.controller.version;
  if (!version) {
    snapshot.denied.set(
      ABSENT,
      "no Karpenter CRDs in the input and the Karpenter version is unknown: pass --crds FILE|DIR (CRD manifests or the karpenter-crd chart), or --karpenter-version X.Y.Z to use that release's CRDs",
    );
    return;
  }
  if (snapshot.controller.versionSeries) {
    // Which release's CRDs to download is a patch the input does not state.
    snapshot.denied.set(
      ABSENT,
      `no Karpenter CRDs in the input and only the series of the Karpenter version is stated (${versionLabel(version, true)}): pass --crds FILE|DIR, or --karpenter-version X.Y.Z to use that release's CRDs`,
    );
    return;
  }
  const got = await releaseCrds(version);
  pushAll(snapshot.skipped, got.notes);
  if ('error' in got)
    snapshot.denied.set(ABSENT, `${got.error}: pass --crds FILE|DIR (CRD manifests of Karpenter ${formatVersion(version)} or its karpenter-crd chart)`);
  else snapshot.useCrds(got.crds, got.origin);
}
