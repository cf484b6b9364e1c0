// The step's outputs: the sandbox's URL and its first merchant's credentials, as
// GET /_sandbox/merchants lists them, with the webhook secret in the form a verifier of the
// sandbox's signing mode takes.

/** Canonical base64, padded or not (as src/crypto/signature.ts). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/**
 * The secret as a Standard Webhooks library takes it: the sandbox's standardSecret()
 * (src/crypto/signature.ts), repeated here because the Action runs from its checkout, where no
 * dist/ is built; test/cli/github-action.test.ts holds the two to the same answers.
 * @param {string} secret
 * @returns {string}
 */
export function standardSecret(secret) {
  const body = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  return body !== '' && BASE64.test(body) ? secret : `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}

/** The outputs for the sandbox at `url` whose first merchant is `merchant`, signing in `mode`. */
export function credentialOutputs(url, merchant, mode) {
  return {
    url,
    'api-key': merchant.api_key ?? '',
    'webhook-secret': mode === 'standard' ? standardSecret(merchant.webhook_secret) : merchant.webhook_secret,
    'public-key': merchant.public_key ?? '',
    'private-key': merchant.private_key ?? '',
    terno: merchant.terNO ?? '',
    'merchant-id': merchant.id,
  };
}
