/**
 * Only manifests are read as manifests in a directory (issue 21 item 5): scripts (by shebang or extension), MIME
 * documents, ownership files and templates are counted in the one "not read" line, never cut into ticket blocks; a
 * directory with nothing to judge says so in one line with the counts and exits 2.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/fake-apiserver.js';
import { FIXTURES, scan } from './support/scan.js';

const repo = (name: string) => join(FIXTURES, 'repos', name);

describe('a directory with nothing to judge', () => {
  it('a workshop of shell heredocs: one line with the counts, exit 2', async () => {
    const r = await runCli(['scan', repo('workshop-heredocs')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `karpdoctor: nothing to judge in ${repo('workshop-heredocs')}: no Kubernetes or Karpenter objects in 4 file(s): 3 script or source file(s), 1 documentation file`,
    ]);
  });

  it('a chart repository of templates only: one line, exit 2', async () => {
    const r = await runCli(['scan', repo('chart-templates-only')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `karpdoctor: nothing to judge in ${repo('chart-templates-only')}: no Kubernetes or Karpenter objects in 5 file(s): 2 Helm chart file(s), 2 template(s), 1 documentation file`,
    ]);
  });
});

describe('manifests beside the tools that maintain them', () => {
  it('loads the objects; scripts without extension, ownership files, MIME user data and templates are one counted line', async () => {
    const root = repo('cli-tooling');
    const r = await scan([root], { only: [] });
    expect(r.report.snapshot.counts).toEqual({ NodePool: 1, EC2NodeClass: 1 });
    expect(r.report.snapshot.skipped).toEqual([
      { source: join(root, 'README.md'), reason: `1 documentation file(s) not read (e.g. ${join(root, 'README.md')})` },
      {
        source: `${root}/`,
        reason: `6 file(s) that are not Kubernetes manifests not read: 2 script or source file(s), 1 Handlebars template, 1 MIME multipart document, 1 ownership file, 1 Terraform template (templatefile) (e.g. ${join(root, 'OWNERS_ALIASES')})`,
      },
    ]);
  });

  it('a script named on the command line is still read as the user asked', async () => {
    const r = await scan([join(repo('cli-tooling'), 'bin', 'pool-report')], { only: [] });
    expect(r.report.snapshot.skipped.map((s) => s.reason).join('\n')).not.toMatch(/not Kubernetes manifests not read/);
  });
});
