/**
 * Planted secrets, per shape of the catalog (src/collect/secret-shapes.ts), in the spellings users write them. In
 * `text` and `secret`, `@@` stands for a three-character code (capitals and a digit) that makes each planting
 * unique, so a leak names the place it came from. `secret` is what must not reach a bundle; `kept` what must stay.
 * All values are made up.
 */
export interface SecretSample {
  text: string;
  secret: string;
  kept?: string;
  /** How the sample stands in a container's args when a shell would split it (`["--password", "x"]`). */
  argv?: string[];
}

export const SECRET_SAMPLES: Record<string, SecretSample[]> = {
  'private-key': [
    {
      text: '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7Yq@@wZk3\nQm9TzLp4Rv\n-----END RSA PRIVATE KEY-----',
      secret: 'MIIEpAIBAAKCAQEA7Yq@@wZk3',
      kept: '-----BEGIN RSA PRIVATE KEY-----',
    },
    { text: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA@@Zx', secret: 'b3BlbnNzaC1rZXktdjEA@@Zx', kept: '-----BEGIN OPENSSH PRIVATE KEY-----' },
  ],
  'url-credentials': [
    { text: 'postgres://orders_app:Tr0ub4dor@@x9@db.internal.example:5432/orders', secret: 'Tr0ub4dor@@x9', kept: 'db.internal.example' },
    { text: 'https://deploy:Kp@@m2Vq8@git.example.org/platform/charts.git', secret: 'Kp@@m2Vq8', kept: 'git.example.org' },
    { text: 'mysql://reports:Q7@@x@#9z@mysql.reports.svc:3306/warehouse', secret: 'Q7@@x@#9z', kept: 'mysql.reports.svc' },
  ],
  'url-token-user': [
    {
      text: 'git clone https://4f1e9c0b7a@@d3e8f62a91c4b5d7e0f3a8c2b1@github.example.com/platform/nodepools.git',
      secret: '4f1e9c0b7a@@d3e8f62a91c4b5d7e0f3a8c2b1',
      kept: 'github.example.com/platform/nodepools.git',
    },
  ],
  'url-query-key': [
    { text: 'GET https://maps.example.com/api/geocode?key=Mk@@a8b7c6&region=eu', secret: 'Mk@@a8b7c6', kept: 'region=eu' },
    { text: 'redirect to https://sso.example.com/callback?state=xyz&code=4/0Ad@@Qz9', secret: '4/0Ad@@Qz9', kept: 'state=xyz' },
  ],
  'slack-webhook': [
    { text: 'https://hooks.slack.com/services/T0A1B2C3D/B0Z9Y8X7W/Qw@@ErTyUiOpAsDfGhJkLz', secret: 'Qw@@ErTyUiOpAsDfGhJkLz', kept: 'hooks.slack.com' },
  ],
  'discord-webhook': [
    { text: 'https://discord.com/api/webhooks/112233445566778899/Zx@@Cv-BnMaSdFgHjKlQwErTy', secret: 'Zx@@Cv-BnMaSdFgHjKlQwErTy', kept: 'discord.com' },
  ],
  'webhook-path': [
    {
      text: 'https://acme.webhook.office.com/webhookb2/5f1c@@e2a-77aa/IncomingWebhook/9b8c7d6e5f4a@@/0a1b2c3d',
      secret: '9b8c7d6e5f4a@@',
      kept: 'acme.webhook.office.com',
    },
  ],
  'aws-access-key-id': [
    { text: 'AKIA@@7QWERTYUIOPAS', secret: 'AKIA@@7QWERTYUIOPAS', kept: 'AKIA' },
    { text: '--aws-key-id ASIA@@LKJHGFDSAZXC', secret: 'ASIA@@LKJHGFDSAZXC', argv: ['--aws-key-id', 'ASIA@@LKJHGFDSAZXC'] },
  ],
  'gcp-api-key': [
    { text: 'key=AIzaSyD@@a1b2c3d4e5f6g7h8i9j0kLmNoPqRs', secret: 'AIzaSyD@@a1b2c3d4e5f6g7h8i9j0kLmNoPqRs' },
    { text: 'ya29.a0AfB_byC@@k1LmNoPqRsTuVwXyZ0123', secret: 'ya29.a0AfB_byC@@k1LmNoPqRsTuVwXyZ0123' },
  ],
  'vendor-token': [
    { text: 'ghp_R2d2@@C3poBb8Luke9LeiaHanSoloChewie0', secret: 'ghp_R2d2@@C3poBb8Luke9LeiaHanSoloChewie0', kept: 'ghp_' },
    { text: 'xoxb-1234@@5678-abcdefGHIJKL', secret: 'xoxb-1234@@5678-abcdefGHIJKL', kept: 'xoxb-' },
    { text: 'glpat-Ab@@Cd3Ef4Gh5Ij6Kl7M', secret: 'glpat-Ab@@Cd3Ef4Gh5Ij6Kl7M' },
  ],
  jwt: [
    {
      text: '--auth=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1ib3QifQ.Ab@@Cd_Ef-Gh',
      secret: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1ib3QifQ.Ab@@Cd_Ef-Gh',
      kept: '--auth=',
    },
    { text: 'eyJ0eXAiOiJKV1Qi@@.eyJpc3MiOiJrIn0.', secret: 'eyJ0eXAiOiJKV1Qi@@.eyJpc3MiOiJrIn0.' },
  ],
  'bearer-basic': [
    { text: 'Authorization: Bearer q@@Zt5Yw8Xv2Ur', secret: 'q@@Zt5Yw8Xv2Ur', kept: 'Bearer' },
    { text: 'curl -H "Authorization: Basic ZGVw@@bG95OnM=" https://registry.example', secret: 'ZGVw@@bG95OnM=' },
    { text: 'Authorization: token 9c4e@@a7b1d2', secret: '9c4e@@a7b1d2', kept: 'token' },
  ],
  'credential-setting': [
    { text: 'export DB_PASSWORD=Hn@@ter2', secret: 'Hn@@ter2', kept: 'DB_PASSWORD=' },
    { text: '--db-password=Pw@@d7Zx', secret: 'Pw@@d7Zx', kept: '--db-password=' },
    { text: '{"username": "svc", "password": "Sw@@rdf1sh"}', secret: 'Sw@@rdf1sh', kept: '"password": "' },
    { text: 'password: Ml@@ng0', secret: 'Ml@@ng0' },
    { text: 'db_pass=Bq@@r7', secret: 'Bq@@r7' },
    { text: 'client_secret: "Cs@@cr3t"', secret: 'Cs@@cr3t' },
    { text: 'x-api-key: Ak@@9f3e', secret: 'Ak@@9f3e' },
    { text: 'token=Tk@@n42 rotated', secret: 'Tk@@n42', kept: 'rotated' },
    { text: 'aws_secret_access_key = "wJalrX@@Utn/K7MDENG"', secret: 'wJalrX@@Utn/K7MDENG', kept: 'aws_secret_access_key = "' },
    { text: 'https://storage.example/blob?sv=2022&sig=Sg@@n4tur3Zz&se=2030', secret: 'Sg@@n4tur3Zz', kept: 'sv=2022' },
    {
      text: 'DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=Az@@kEy1;EndpointSuffix=core.windows.net',
      secret: 'Az@@kEy1',
      kept: 'AccountName=acmelogs',
    },
  ],
  'credential-flag': [
    { text: '--password Fl@@gPw1', secret: 'Fl@@gPw1', argv: ['--password', 'Fl@@gPw1'] },
    { text: '--api-token "Ap@@T0k"', secret: 'Ap@@T0k', argv: ['--api-token', 'Ap@@T0k'] },
    { text: 'aws configure set aws_secret_access_key Cf@@gK3y', secret: 'Cf@@gK3y', kept: 'aws_secret_access_key' },
  ],
  'credential-prose': [
    { text: 'The password is Wi@@nter24! for the break-glass user', secret: 'Wi@@nter24!', kept: 'break-glass user' },
    { text: 'api key was changed to "ak_@@9f8e7d" yesterday', secret: 'ak_@@9f8e7d', kept: 'yesterday' },
    { text: 'registry token is now hunter@@2', secret: 'hunter@@2', kept: 'registry token is now' },
  ],
  'short-password-flag': [
    { text: 'mysql -h db.internal -u admin -pMy@@sqlPw orders', secret: 'My@@sqlPw', kept: 'db.internal' },
    { text: 'sshpass -p Ss@@hPw ssh ops@bastion', secret: 'Ss@@hPw', argv: ['sshpass', '-p', 'Ss@@hPw', 'ssh', 'ops@bastion'] },
  ],
  'opaque-key': [
    { text: 'wJalrXUtnFEMI/K7MDENG/bPxRfi@@YEXAMPLEKEY', secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfi@@YEXAMPLEKEY' },
    {
      text: 'storage key ' + 'Xk3@@Lm9Pq2Rs8Tu7Vw6Yz5Ab4Cd1Ef0Gh+Ij/Kl2Mn3Op4Qr5St6Uv7Wx8Yz9Ab0Cd1Ef2Gh3Ij4Kl5Mn6Op7Qr8St9Uv0W==',
      secret: 'Xk3@@Lm9Pq2Rs8Tu7Vw6Yz5Ab4Cd1Ef0Gh+Ij/Kl2Mn3Op4Qr5St6Uv7Wx8Yz9Ab0Cd1Ef2Gh3Ij4Kl5Mn6Op7Qr8St9Uv0W==',
    },
  ],
};

/** A sample with its `@@` made unique. */
export function planted(sample: SecretSample, code: string): SecretSample {
  const fill = (s: string) => s.replaceAll('@@', code);
  return {
    text: fill(sample.text),
    secret: fill(sample.secret),
    ...(sample.kept ? { kept: fill(sample.kept) } : {}),
    ...(sample.argv ? { argv: sample.argv.map(fill) } : {}),
  };
}

/** Three characters (capital, digit, capital), distinct for the first 6,760 plantings. */
export function plantingCode(i: number): string {
  const letter = (n: number) => String.fromCharCode(65 + (n % 26));
  return `${letter(Math.floor(i / 260))}${i % 10}${letter(Math.floor(i / 10))}`;
}
