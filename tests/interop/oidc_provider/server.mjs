// node-oidc-provider on 127.0.0.1 issuing JWT access tokens (typ at+jwt, RFC 9068) for memguard's
// interop test. Usage: node server.mjs <port> <jwks.json with one private ES256 key>
// Prints "ready <issuer>" on stdout once listening. A token requested with the scope `memory:act`
// carries an `act` claim the provider asserts (a hop no memguard grant allows), so the test can
// check that memguard never trusts an external issuer's delegation hop.
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const port = Number(process.argv[2]);
const jwks = JSON.parse(readFileSync(process.argv[3], 'utf8'));
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  jwks,
  clients: [{
    client_id: 'memguard-interop',
    client_secret: 'interop-secret-not-for-production',
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    id_token_signed_response_alg: 'ES256',
    scope: 'memory:read memory:write memory:act',
  }],
  scopes: ['memory:read', 'memory:write', 'memory:act'],
  extraTokenClaims: async (ctx, token) => (
    String(token.scope || '').split(' ').includes('memory:act')
      ? { act: { sub: 'spiffe://memguard.local/agent/rogue' } }
      : undefined
  ),
  enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:memguard',
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => ({
        scope: 'memory:read memory:write memory:act',
        audience: 'memguard',
        accessTokenTTL: 300,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});
provider.proxy = false;
const server = provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
