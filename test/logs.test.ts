import { describe, expect, it } from 'vitest';
import {
  isKarpenterControllerPod,
  isLogBlockEnd,
  looksLikeKarpenterLog,
  normaliseTime,
  parseLogBlockStart,
  parseLogLine,
  podFromLogPath,
  type LogContext,
} from '../src/loaders/logs.js';

const ctx: LogContext = { source: 'dump/karpenter.log' };
const parse = (line: string, c: LogContext = ctx) => parseLogLine(line, 7, c);

// Log lines in the shape real dumps hold (docs/karpenter-behaviour.md §8.1).
const CONSOLE_CREATED =
  '2023-09-21T13:14:01.680Z\tINFO\tcontroller.provisioner\tcreated machine\t{"commit": "637a642", "provisioner": "fake-sample-service-usw2-dev-default", "machine": "fake-sample-service-usw2-dev-default-72mzr", "requests": {"cpu":"2490m","memory":"5233272064","pods":"10"}, "instance-types": "c6a.12xlarge, c6a.16xlarge, c6a.2xlarge, c6a.4xlarge, c6a.8xlarge and 95 other(s)"}';
const CONSOLE_EXCLUDED =
  '2023-09-21T13:14:01.649Z\tDEBUG\tcontroller.provisioner\t58 out of 724 instance types were excluded because they would breach limits\t{"commit": "637a642", "provisioner": "custom-provideref"}';
const V034_PDB =
  '{"level":"ERROR","time":"2024-03-19T02:48:43.312Z","logger":"controller.nodeclaim.consistency","message":"check failed, can\'t drain node, PDB \\"istio-system/istiod\\" is blocking evictions","commit":"2c8f2a5","nodeclaim":"eks-unmanaged-amd64-dcg87"}';
const V1_RECONCILER_ERROR =
  '{"level":"ERROR","time":"2024-11-15T18:18:38.433Z","logger":"controller","caller":"controller/controller.go:261","message":"Reconciler error","commit":"a2875e3","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"default-g8nd2"},"namespace":"","name":"default-g8nd2","reconcileID":"c771433a-5731-4e0b-99f7-ad33361ec0d6","error":"missing required startup taint, karpenter.sh/unregistered"}';
const V1_WEBHOOK_TLS =
  '{"level":"ERROR","time":"2024-11-25T19:55:28.692Z","logger":"webhook","message":"http: TLS handshake error from 10.107.108.107:56170: read tcp 100.64.122.98:8443->10.107.108.107:56170: read: connection reset by peer\\n","commit":"901a5dc"}';
const COREDNS = [
  '[INFO] plugin/reload: Running configuration SHA512 = 591cf328cccc12bc490481273e738df59329c62c0b729d94e8b61db9961c2fa5f046dd37f1cf888b953814040d180f52594972691cd6ff41be96639138a43908',
  'CoreDNS-1.11.1',
  'linux/amd64, go1.20.7, ae2bbc2',
  '[INFO] plugin/kubernetes: waiting for Kubernetes API before starting server',
  '',
].join('\n');

describe('parseLogLine: generations', () => {
  it('parses ≤ v0.31 zap console lines, fields JSON included and logger moved into fields', () => {
    expect(parse(CONSOLE_CREATED)).toStrictEqual({
      time: '2023-09-21T13:14:01.680Z',
      level: 'INFO',
      message: 'created machine',
      fields: {
        logger: 'controller.provisioner',
        commit: '637a642',
        provisioner: 'fake-sample-service-usw2-dev-default',
        machine: 'fake-sample-service-usw2-dev-default-72mzr',
        requests: { cpu: '2490m', memory: '5233272064', pods: '10' },
        'instance-types': 'c6a.12xlarge, c6a.16xlarge, c6a.2xlarge, c6a.4xlarge, c6a.8xlarge and 95 other(s)',
      },
      provenance: { source: 'dump/karpenter.log', line: 7 },
    });
    const r = parse(CONSOLE_EXCLUDED)!;
    expect(r.level).toBe('DEBUG');
    expect(r.message).toBe('58 out of 724 instance types were excluded because they would breach limits');
  });

  it('parses console lines without a fields tail, with a caller, and keeps a broken tail in the message', () => {
    const noFields = parse('2021-11-15T10:00:00.000Z\tINFO\tcontroller.termination\tCordoned node');
    expect(noFields).toMatchObject({ level: 'INFO', message: 'Cordoned node', fields: { logger: 'controller.termination' } });
    const caller = parse(
      '2023-10-06T12:16:21.399Z\tDEBUG\tcontroller.termination\ttermination/controller.go:104\tcordoned node\t{"commit": "637a642", "node": "ip-1"}',
    )!;
    expect(caller.message).toBe('cordoned node');
    expect(parse('2023-10-06T12:16:21.399Z\tinfo\tcontroller\tcordoned node')!.level).toBe('INFO');
    expect(caller.fields).toStrictEqual({
      logger: 'controller.termination',
      caller: 'termination/controller.go:104',
      commit: '637a642',
      node: 'ip-1',
    });
    const broken = parse('2023-10-06T12:16:21.399Z\tINFO\tcontroller.termination\tcordoned node\t{"commit": "63')!;
    expect(broken.message).toBe('cordoned node\t{"commit": "63');
    expect(broken.fields).toStrictEqual({ logger: 'controller.termination' });
  });

  it('parses v0.32–v0.36 JSON, keeping logger and lower-case object keys in fields', () => {
    expect(parse(V034_PDB)).toStrictEqual({
      time: '2024-03-19T02:48:43.312Z',
      level: 'ERROR',
      message: 'check failed, can\'t drain node, PDB "istio-system/istiod" is blocking evictions',
      fields: { logger: 'controller.nodeclaim.consistency', commit: '2c8f2a5', nodeclaim: 'eks-unmanaged-amd64-dcg87' },
      provenance: { source: 'dump/karpenter.log', line: 7 },
    });
  });

  it('parses v0.37+ controller-runtime JSON with nested object references kept as parsed', () => {
    const r = parse(V1_RECONCILER_ERROR)!;
    expect(r.level).toBe('ERROR');
    expect(r.time).toBe('2024-11-15T18:18:38.433Z');
    expect(r.message).toBe('Reconciler error');
    expect(r.fields).toStrictEqual({
      logger: 'controller',
      caller: 'controller/controller.go:261',
      commit: 'a2875e3',
      controller: 'nodeclaim.lifecycle',
      controllerGroup: 'karpenter.sh',
      controllerKind: 'NodeClaim',
      NodeClaim: { name: 'default-g8nd2' },
      namespace: '',
      name: 'default-g8nd2',
      reconcileID: 'c771433a-5731-4e0b-99f7-ad33361ec0d6',
      error: 'missing required startup taint, karpenter.sh/unregistered',
    });
  });

  it('keeps an embedded newline of a JSON message', () => {
    expect(parse(V1_WEBHOOK_TLS)!.message).toMatch(/connection reset by peer\n$/);
  });

  it('accepts msg/severity/ts keys and normalises level case and epoch times', () => {
    const r = parse('{"severity":"info","ts":1700000000.123,"msg":"Starting workers","controller":"provisioner"}')!;
    expect(r).toMatchObject({ level: 'INFO', time: '2023-11-14T22:13:20.123Z', message: 'Starting workers' });
    expect(r.fields).toStrictEqual({ controller: 'provisioner' });
  });

  it('returns null for blank lines, truncated JSON, non-record JSON and undated free text', () => {
    expect(parse('')).toBeNull();
    expect(parse('   \r')).toBeNull();
    expect(parse(V1_RECONCILER_ERROR.slice(0, 120))).toBeNull();
    expect(parse('2024-11-15T18:18:38.433912345Z ' + V034_PDB.slice(0, 60))).toBeNull();
    expect(parse('{"kind":"NodeList","apiVersion":"v1","items":[]}')).toBeNull();
    expect(parse('[1,2]')).toBeNull();
    expect(parse('[INFO] plugin/reload: Running configuration SHA512 = 591cf328cccc12bc')).toBeNull();
    expect(parse('Create log request error: container "controller" in pod "karpenter-x" is waiting')).toBeNull();
    expect(parse('==== START logs for container controller of pod kube-system/karpenter-6b8d5c7f9d-abcde ====')).toBeNull();
  });

  it('takes the pod from the context when no prefix names one', () => {
    const pod = { namespace: 'kube-system', name: 'karpenter-6b8d5c7f9d-abcde', container: 'controller' };
    expect(parse(V034_PDB, { source: 's', pod })!.pod).toStrictEqual(pod);
    expect(parse(V034_PDB)!).not.toHaveProperty('pod');
  });
});

describe('parseLogLine: prefixes and re-emits', () => {
  it('strips a kubectl --timestamps / must-gather prefix and uses it only when the record has no time', () => {
    const withOwn = parse('2024-11-15T18:18:38.433912345Z ' + V1_RECONCILER_ERROR)!;
    expect(withOwn.time).toBe('2024-11-15T18:18:38.433Z');
    expect(withOwn.message).toBe('Reconciler error');
    const without = parse('2024-11-15T18:18:39.999912345Z {"level":"info","message":"tainted node","commit":"x"}')!;
    expect(without.time).toBe('2024-11-15T18:18:39.999Z');
    expect(without.level).toBe('INFO');
    const console = parse('2023-09-21T13:14:02.000000001Z ' + CONSOLE_CREATED)!;
    expect(console.time).toBe('2023-09-21T13:14:01.680Z');
    expect(console.message).toBe('created machine');
  });

  it('uses a timestamped free-text line as a record (panic output under --timestamps)', () => {
    expect(parse('2024-11-15T18:18:38.433912345Z panic: runtime error: invalid memory address')).toMatchObject({
      time: '2024-11-15T18:18:38.433Z',
      message: 'panic: runtime error: invalid memory address',
      fields: {},
    });
  });

  it('reads the pod from a kubectl --prefix prefix, borrowing the namespace from a matching context', () => {
    const line = '[pod/karpenter-6465666966-4q49j/controller] ' + V034_PDB;
    const r = parse(line)!;
    expect(r.pod).toStrictEqual({ name: 'karpenter-6465666966-4q49j', container: 'controller' });
    expect(r.message).toMatch(/^check failed/);
    const withNs = parse(line, { source: 's', pod: { namespace: 'karpenter', name: 'karpenter-6465666966-4q49j' } })!;
    expect(withNs.pod).toStrictEqual({ namespace: 'karpenter', name: 'karpenter-6465666966-4q49j', container: 'controller' });
    const other = parse(line, { source: 's', pod: { namespace: 'karpenter', name: 'someone-else' } })!;
    expect(other.pod).toStrictEqual({ name: 'karpenter-6465666966-4q49j', container: 'controller' });
  });

  it('combines --prefix with --timestamps', () => {
    const r = parse('[pod/karpenter-6465666966-4q49j/controller] 2024-11-15T18:18:38.433912345Z {"message":"deleted node"}')!;
    expect(r).toMatchObject({ time: '2024-11-15T18:18:38.433Z', message: 'deleted node', pod: { name: 'karpenter-6465666966-4q49j' } });
  });

  it('reads the pod from stern prefixes (ns/pod[ctr]: and the default "pod container")', () => {
    const bracket = parse('kube-system/karpenter-6465666966-4q49j[controller]: ' + V034_PDB)!;
    expect(bracket.pod).toStrictEqual({ namespace: 'kube-system', name: 'karpenter-6465666966-4q49j', container: 'controller' });
    expect(bracket.level).toBe('ERROR');
    const plain = parse('karpenter-6465666966-4q49j controller ' + V1_RECONCILER_ERROR)!;
    expect(plain.pod).toStrictEqual({ name: 'karpenter-6465666966-4q49j', container: 'controller' });
    expect(plain.message).toBe('Reconciler error');
    const withNs = parse('kube-system karpenter-6465666966-4q49j controller ' + CONSOLE_EXCLUDED)!;
    expect(withNs.pod).toStrictEqual({ namespace: 'kube-system', name: 'karpenter-6465666966-4q49j', container: 'controller' });
    expect(withNs.level).toBe('DEBUG');
    const coloured = parse('\x1b[32mkarpenter-6465666966-4q49j\x1b[0m \x1b[33mcontroller\x1b[0m ' + V1_RECONCILER_ERROR)!;
    expect(coloured.pod?.name).toBe('karpenter-6465666966-4q49j');
  });

  it('does not mistake two words of free text for a stern prefix', () => {
    const r = parse('2024-11-15T18:18:38Z ready to serve requests now')!;
    expect(r.message).toBe('ready to serve requests now');
    expect(r).not.toHaveProperty('pod');
  });

  it('takes the time from an aggregator re-emit whose JSON lost level and time', () => {
    const r = parse(
      '2025-09-24T03:50:16.279Z\t{"message":"tainted node","commit":"1b0d8d8","controller":"node.termination","Node":{"name":"ip-10-0-1-2"},"taint.Key":"karpenter.sh/disrupted"}',
    )!;
    expect(r.time).toBe('2025-09-24T03:50:16.279Z');
    expect(r.level).toBeUndefined();
    expect(r.message).toBe('tainted node');
    expect(r.fields.Node).toStrictEqual({ name: 'ip-10-0-1-2' });
  });

  it('keeps a Loki text export as a record with its time made RFC3339 UTC', () => {
    expect(parse('2024-10-24 15:10:10.332\tNominated: Pod should schedule on: nodeclaim/default-abcde, node/ip-10-0-1-2')).toStrictEqual({
      time: '2024-10-24T15:10:10.332Z',
      timeZoneUnknown: true,
      message: 'Nominated: Pod should schedule on: nodeclaim/default-abcde, node/ip-10-0-1-2',
      fields: {},
      provenance: { source: 'dump/karpenter.log', line: 7 },
    });
  });
});

describe('normaliseTime', () => {
  it.each([
    ['2024-11-15T18:18:38Z', '2024-11-15T18:18:38.000Z'],
    ['2024-11-15T18:18:38.433912345Z', '2024-11-15T18:18:38.433Z'],
    ['2024-11-15T20:18:38.5+02:00', '2024-11-15T18:18:38.500Z'],
    ['2024-11-15T13:18:38-0500', '2024-11-15T18:18:38.000Z'],
    ['2024-10-24 15:10:10.332', '2024-10-24T15:10:10.332Z'],
    [1700000000, '2023-11-14T22:13:20.000Z'],
    [1700000000123, '2023-11-14T22:13:20.123Z'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseTime(input)).toBe(expected);
  });

  it('rejects what is not a time, leaving an unreadable one in fields', () => {
    expect(normaliseTime('yesterday')).toBeUndefined();
    expect(normaliseTime(null)).toBeUndefined();
    const r = parse('{"level":"INFO","time":"yesterday","message":"x"}')!;
    expect(r).not.toHaveProperty('time');
    expect(r.fields).toStrictEqual({ time: 'yesterday' });
  });
});

describe('log block markers', () => {
  it('parses START markers and recognises END markers', () => {
    expect(parseLogBlockStart('==== START logs for container controller of pod kube-system/karpenter-6b8d5c7f9d-abcde ====')).toStrictEqual({
      container: 'controller',
      namespace: 'kube-system',
      name: 'karpenter-6b8d5c7f9d-abcde',
    });
    expect(parseLogBlockStart('==== END logs for container controller of pod kube-system/karpenter-6b8d5c7f9d-abcde ====')).toBeNull();
    expect(parseLogBlockStart('[INFO] plugin/kubernetes: waiting for Kubernetes API before starting server')).toBeNull();
    expect(isLogBlockEnd('==== END logs for container coredns of pod kube-system/coredns-6f6b679f8f-rgq7r ====')).toBe(true);
    expect(isLogBlockEnd('==== START logs for container coredns of pod kube-system/coredns-6f6b679f8f-rgq7r ====')).toBe(false);
  });
});

describe('podFromLogPath', () => {
  it('reads cluster-info dump <ns>/<pod>/logs.txt', () => {
    expect(podFromLogPath('kube-system/karpenter-6b8d5c7f9d-abcde/logs.txt')).toStrictEqual({
      namespace: 'kube-system',
      name: 'karpenter-6b8d5c7f9d-abcde',
    });
    expect(podFromLogPath('dump/karpenter/karpenter-6b8d5c7f9d-abcde/logs.txt')).toMatchObject({ namespace: 'karpenter' });
  });

  it('reads must-gather namespaces/<ns>/pods/<pod>/<ctr>/<ctr>/logs/{current,previous}.log', () => {
    const base = 'must-gather.local.123/quay-io-x/namespaces/kube-system/pods/karpenter-6b8d5c7f9d-abcde/controller/controller/logs';
    const expected = { namespace: 'kube-system', name: 'karpenter-6b8d5c7f9d-abcde', container: 'controller' };
    expect(podFromLogPath(`${base}/current.log`)).toStrictEqual(expected);
    expect(podFromLogPath(`${base}/previous.log`)).toStrictEqual(expected);
  });

  it('returns null for anything else', () => {
    expect(podFromLogPath('logs.txt')).toBeNull();
    expect(podFromLogPath('kube-system/pods.json')).toBeNull();
    expect(podFromLogPath('namespaces/kube-system/pods/karpenter-x/karpenter-x.yaml')).toBeNull();
    expect(podFromLogPath('karpenter.log')).toBeNull();
    expect(podFromLogPath('x/kube-system/pods/karpenter-x/controller/controller/logs/current.log')).toBeNull();
  });
});

describe('isKarpenterControllerPod', () => {
  it.each([
    ['karpenter-5d4f8b7c9-x2x7q', undefined, true],
    ['karpenter-6465666966-4q49j', 'controller', true],
    ['karpenter-5d4f8b7c9-x2x7q', 'webhook', false],
    ['coredns-6f6b679f8f-rgq7r', undefined, false],
    ['karpenter-crd-install', undefined, false],
    ['karpenter-crd-7c9f5-abcde', undefined, false],
  ] as const)('%s / %s → %s', (pod, container, expected) => {
    expect(isKarpenterControllerPod(pod, container)).toBe(expected);
  });
});

describe('looksLikeKarpenterLog', () => {
  it('recognises every generation, with and without prefixes', () => {
    expect(looksLikeKarpenterLog(`${CONSOLE_EXCLUDED}\n${CONSOLE_CREATED}\n`)).toBe(true);
    expect(looksLikeKarpenterLog(`${V034_PDB}\n`)).toBe(true);
    expect(looksLikeKarpenterLog(`${V1_RECONCILER_ERROR}\n${V1_WEBHOOK_TLS}\n`)).toBe(true);
    expect(looksLikeKarpenterLog(`2024-11-15T18:18:38.433912345Z ${V1_RECONCILER_ERROR}\n`)).toBe(true);
    expect(looksLikeKarpenterLog(`kube-system/karpenter-6465666966-4q49j[controller]: ${V034_PDB}\n`)).toBe(true);
  });

  it('recognises Karpenter by its commit field alone, and a Loki export by what it talks about', () => {
    expect(looksLikeKarpenterLog(`${V1_WEBHOOK_TLS}\n`)).toBe(true);
    expect(looksLikeKarpenterLog('2024-10-24 15:10:10.332\tNominated: Pod should schedule on: nodeclaim/default-abcde\n')).toBe(true);
    expect(looksLikeKarpenterLog('2024-10-24 15:10:10.332\tPod should schedule on: ip-10-0-1-2\n')).toBe(false);
  });

  it('judges a sample holding only the start of one long record by its envelope', () => {
    const long = V1_RECONCILER_ERROR.slice(0, 140);
    expect(looksLikeKarpenterLog(long)).toBe(true);
    expect(looksLikeKarpenterLog('{"level":"info","time":"2024-01-01T00:00:00Z","logger":"setup","msg":"x')).toBe(false);
    // Unterminated but complete: a small file without a final newline.
    expect(looksLikeKarpenterLog(V034_PDB)).toBe(true);
  });

  it('needs most lines to be records, not one pasted line in prose', () => {
    const prose = ['Hi, our nodes are not scaling.', 'Here is what we saw:', V1_RECONCILER_ERROR, 'Any idea?', 'Thanks', ''].join('\n');
    expect(looksLikeKarpenterLog(prose)).toBe(false);
  });

  it('recognises a cluster-info dump block of the controller and ignores a cut last line', () => {
    const block = '==== START logs for container controller of pod kube-system/karpenter-6b8d5c7f9d-abcde ====\n';
    expect(looksLikeKarpenterLog(block)).toBe(true);
    const cut = `${V1_RECONCILER_ERROR}\ngoroutine 1 [running]:\n${V1_RECONCILER_ERROR.slice(0, 50)}`;
    expect(looksLikeKarpenterLog(cut)).toBe(true);
  });

  it('rejects coredns logs, other JSON and YAML that mentions karpenter', () => {
    expect(looksLikeKarpenterLog(COREDNS)).toBe(false);
    expect(looksLikeKarpenterLog('==== START logs for container coredns of pod kube-system/coredns-6f6b679f8f-rgq7r ====\n' + COREDNS)).toBe(false);
    expect(looksLikeKarpenterLog('{"kind":"NodeClaimList","apiVersion":"karpenter.sh/v1","items":[]}\n')).toBe(false);
    expect(looksLikeKarpenterLog('apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\n')).toBe(false);
    expect(looksLikeKarpenterLog('')).toBe(false);
  });

  it('rejects a generic JSON log without Karpenter marks', () => {
    expect(looksLikeKarpenterLog('{"level":"info","ts":1700000000.1,"msg":"serving metrics","logger":"setup"}\n')).toBe(false);
  });
});

describe('klog lines from client-go inside the controller', () => {
  it('become records with level and caller, without inventing a year', () => {
    const r = parseLogLine(
      'I0313 14:00:00.123456       1 leaderelection.go:250] attempting to acquire leader lease kube-system/karpenter-leader-election...',
      3,
      { source: 'k.log' },
    );
    expect(r).toEqual({
      level: 'INFO',
      message: 'attempting to acquire leader lease kube-system/karpenter-leader-election...',
      fields: { caller: 'leaderelection.go:250' },
      provenance: { source: 'k.log', line: 3 },
    });
    expect(parseLogLine('2025-03-13T14:00:00.123456789Z E0313 14:00:00.123456 1 reflector.go:158] failed to list', 4, { source: 'k.log' })).toMatchObject({
      level: 'ERROR',
      time: '2025-03-13T14:00:00.123Z',
    });
  });
});
