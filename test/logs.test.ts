import { describe, expect, it } from 'vitest';
import { goPanicLevel, traceLine } from '../src/loaders/go-traces.js';
import {
  isControllerKlog,
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

  it('keeps every other pair of a record in fields, in order, whichever of its names the message, level and time use', () => {
    const r = parse('{"ts":1700000000,"msg":"m","message":7,"severity":"warn","level":3,"__proto__":{"x":1},"b":2}')!;
    expect(r).toMatchObject({ message: 'm', level: 'WARN', time: '2023-11-14T22:13:20.000Z' });
    expect(Object.keys(r.fields)).toStrictEqual(['message', 'level', '__proto__', 'b']);
    expect(Object.getPrototypeOf(r.fields)).toBe(Object.prototype);
    // The same line read twice gives two records that share nothing.
    const line = '{"level":"INFO","message":"again","nested":{"a":1}}';
    const [a, b] = [parse(line)!, parse(line)!];
    expect(a).toStrictEqual(b);
    expect(a.fields.nested).not.toBe(b.fields.nested);
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

  it('gives a time already written UTC with milliseconds back as it is, and checks it as a date all the same', () => {
    // The controller writes this form; its shortcut must agree with the round trip through Date at every edge.
    for (const t of ['2024-02-28T23:59:59.999Z', '2024-01-01T00:00:00.000Z', '0999-12-28T12:00:00.500Z']) expect(normaliseTime(t)).toBe(t);
    expect(normaliseTime('2024-02-29T10:00:00.000Z')).toBe('2024-02-29T10:00:00.000Z');
    // Days 29–31 go through Date, whatever it makes of them.
    for (const t of ['2023-04-31T10:00:00.000Z', '2023-02-30T10:00:00.000Z']) expect(normaliseTime(t)).toBe(new Date(t).toISOString());
    for (const bad of [
      '2024-13-01T00:00:00.000Z',
      '2024-00-10T00:00:00.000Z',
      '2024-01-00T00:00:00.000Z',
      '2024-01-10T25:00:00.000Z',
      '2024-01-10T10:61:00.000Z',
    ])
      expect(normaliseTime(bad)).toBeUndefined();
    expect(normaliseTime('2024-01-10t10:00:00.000z')).toBe('2024-01-10T10:00:00.000Z');
    expect(normaliseTime(' 2024-01-10T10:00:00.000Z')).toBe('2024-01-10T10:00:00.000Z');
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

describe('parseLogLine: lines as collectors and viewers hand them over', () => {
  const V1 = '{"level":"INFO","time":"2025-03-02T10:00:01.500Z","logger":"controller","message":"created nodeclaim","commit":"abc1234"}';

  it('strips the container runtime prefix (`TIME stdout F`) and keeps the record its own time', () => {
    const r = parse(`2025-03-02T10:00:01.777123456Z stdout F ${V1}`)!;
    expect([r.time, r.level, r.message]).toEqual(['2025-03-02T10:00:01.500Z', 'INFO', 'created nodeclaim']);
  });

  it('unwraps a fluent-bit or Docker json-file envelope, taking pod and time from it', () => {
    const envelope = JSON.stringify({
      time: '2025-03-02T10:00:01.9Z',
      stream: 'stdout',
      log: `${V1.replace('"time":"2025-03-02T10:00:01.500Z",', '')}\n`,
      kubernetes: { pod_name: 'karpenter-1a2b3c-x9z8y', namespace_name: 'karpenter', container_name: 'controller' },
    });
    const r = parse(envelope)!;
    expect(r.time).toBe('2025-03-02T10:00:01.900Z');
    expect(r.pod).toEqual({ namespace: 'karpenter', name: 'karpenter-1a2b3c-x9z8y', container: 'controller' });
    expect(r.message).toBe('created nodeclaim');
    // An object that has its own message is a record, not an envelope, whatever its `log` says.
    expect(parse('{"message":"m","log":"x","level":"info"}')!.message).toBe('m');
  });

  it('reads a CSV export row (doubled quotes) and a Kibana Discover time column', () => {
    const csv = `2025-03-02 10:00:01.500,"${V1.replace(/"/g, '""')}"`;
    expect(parse(csv)!.message).toBe('created nodeclaim');
    const kibana = parse('Mar 2, 2025 @ 11:00:01.500\tkarpenter-1a2b3c-x9z8y\t{"message":"tainted node","logger":"controller"}')!;
    expect([kibana.time, kibana.timeZoneUnknown, kibana.pod?.name]).toEqual(['2025-03-02T11:00:01.500Z', true, 'karpenter-1a2b3c-x9z8y']);
    // A time, a comma and prose is not a CSV row.
    expect(parse('2025-03-02T10:00:01Z, then the node went away')).toBeNull();
  });

  it("reads Go's standard log lines with a time whose zone is unknown", () => {
    const r = parse('2023/10/03 08:30:11 Registering 2 clients')!;
    expect([r.time, r.timeZoneUnknown, r.level, r.message]).toEqual(['2023-10-03T08:30:11.000Z', true, undefined, 'Registering 2 clients']);
  });

  it('repairs a line that lost its first character or its opening brace', () => {
    expect(parse('023-04-17T09:02:44.118Z\tERROR\tcontroller.provisioning\tCould not launch node')!.time).toBe('2023-04-17T09:02:44.118Z');
    expect(parse('"level":"DEBUG","time":"2024-05-21T07:44:12.870Z","message":"discovered region"}')!.level).toBe('DEBUG');
    expect(parse('"level":"DEBUG","time":"2024-05-21T07:44:12.870Z"')).toBeNull();
  });

  it('reads a record marked as cut (…) up to its last complete field, and no further', () => {
    const r = parse('{"level":"INFO","time":"2024-09-03T16:42:05.640Z","message":"tainted node","Node":{"name":"ip-10-4…')!;
    expect([r.cut, r.message, r.fields]).toEqual([true, 'tainted node', {}]);
    // Without a cut mark a broken record stays unread.
    expect(parse('{"level":"INFO","time":"2024-09-03T16:42:05.640Z","message":"tainted node","Node":{"name":"ip-10-4')).toBeNull();
  });

  it('reads a Go panic line as a PANIC record, and an aggregator that kept only its message', () => {
    expect(parse('panic: runtime error: index out of range [3] with length 3')!.level).toBe('PANIC');
    expect(parse('fatal error: concurrent map writes')!.level).toBe('FATAL');
    expect(parse('{"message":"panic: assignment to entry in nil map"}')!.level).toBe('PANIC');
    // A YAML key named panic is not one.
    expect(parse('panic: false')).toBeNull();
    expect(goPanicLevel('panic:')).toBeUndefined();
  });
});

describe('error chains pasted alone', () => {
  it('reads an error chain of Karpenter as an ERROR record without time, unescaping a copy out of JSON', () => {
    const r = parse('creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: none left')!;
    expect([r.level, r.time, r.message.slice(0, 17)]).toEqual(['ERROR', undefined, 'creating instance']);
    expect(parse('failed calling webhook \\"x.karpenter.sh\\": failed to call webhook: Post \\"https://k/\\": EOF"')!.message).toBe(
      'failed calling webhook "x.karpenter.sh": failed to call webhook: Post "https://k/": EOF',
    );
  });

  it('leaves prose that starts the same way alone', () => {
    expect(parse('Could not schedule pod, what should I do?')).toBeNull();
    expect(parse('creating instance takes long')).toBeNull();
    expect(parse('Creating instance, then waiting')).toBeNull();
  });
});

describe('Go stack traces', () => {
  it('recognises the goroutine header, frames and file lines, and not prose or host names', () => {
    expect(traceLine('goroutine 12 [running]:')).toBe('strong');
    expect(traceLine('\tsigs.k8s.io/karpenter@v1.7.0/pkg/operator/operator.go:124 +0x6c')).toBe('strong');
    expect(traceLine('        k8s.io/apimachinery@v0.19.7/pkg/util/runtime/runtime.go:74 +0xa6')).toBe('strong');
    expect(traceLine('[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x13fa27e]')).toBe('strong');
    expect(traceLine('main.main()')).toBe('frame');
    expect(traceLine('github.com/aws/karpenter-core/pkg/controllers/provisioning.(*Provisioner).Schedule')).toBe('frame');
    expect(traceLine('sync.(*Map).Range(0xc0010f7970, 0xc002b0c958)')).toBe('frame');
    expect(traceLine('ip-10-12-40-7.us-west-2.compute.internal')).toBeUndefined();
    expect(traceLine('The node went away at 10.00.')).toBeUndefined();
    expect(traceLine('kubectl get nodes')).toBeUndefined();
  });

  it("tells the controller's klog lines from kubectl's own", () => {
    expect(isControllerKlog('E0714 06:12:55.402117       1 runtime.go:78] Observed a panic: "x"')).toBe(true);
    expect(isControllerKlog('I1003 08:30:11.609348       1 leaderelection.go:248] attempting to acquire leader lease')).toBe(true);
    expect(isControllerKlog("E0714 06:12:55.402117   71234 memcache.go:265] couldn't get current server API group list")).toBe(false);
    expect(isControllerKlog('not klog at all')).toBe(false);
  });
});

describe("podFromLogPath: the node's own log files", () => {
  it('reads pod, namespace and container from /var/log/containers and /var/log/pods names', () => {
    const id = 'a'.repeat(64);
    expect(podFromLogPath(`var/log/containers/karpenter-6d5c4b3a2-p8q7r_kube-system_controller-${id}.log`)).toEqual({
      namespace: 'kube-system',
      name: 'karpenter-6d5c4b3a2-p8q7r',
      container: 'controller',
    });
    expect(podFromLogPath('var/log/pods/karpenter_karpenter-6d5c4b3a2-p8q7r_0a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d/controller/0.log')).toEqual({
      namespace: 'karpenter',
      name: 'karpenter-6d5c4b3a2-p8q7r',
      container: 'controller',
    });
    expect(podFromLogPath('logs/karpenter_controller.log')).toBeNull();
  });
});
