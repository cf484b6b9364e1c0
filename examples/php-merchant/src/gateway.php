<?php
// Talking to the gateway: the encrypted S2S payment, the refund request, and the webhook's
// signature and cipher. Plain PHP 8 with the openssl extension; HTTP through PHP's own stream
// wrapper, so neither the curl extension nor Composer is needed.

declare(strict_types=1);

/** The AES-256-CBC key and IV of a terminal: the gateway's own openssl_encrypt recipe. */
function gateway_cipher_keys(string $privateKey, string $publicKey): array
{
    return [substr(hash('sha256', $privateKey), 0, 32), substr(hash('sha256', $publicKey), 0, 16)];
}

/** The encrypted_data form field: the query string encrypted, base64 twice, then the public_key. */
function gateway_encrypt(array $params, string $privateKey, string $publicKey): string
{
    [$key, $iv] = gateway_cipher_keys($privateKey, $publicKey);
    // http_build_query encodes spaces as '+', which is what the gateway decrypts.
    $query = http_build_query($params);
    return base64_encode(openssl_encrypt($query, 'AES-256-CBC', $key, 0, $iv)) . $publicKey;
}

/** The fields of an encrypted webhook's `data` value, or null when it does not decrypt. */
function gateway_decrypt(string $data, string $privateKey, string $publicKey): ?array
{
    [$key, $iv] = gateway_cipher_keys($privateKey, $publicKey);
    $plain = openssl_decrypt((string) base64_decode($data, true), 'AES-256-CBC', $key, 0, $iv);
    if ($plain === false) {
        return null;
    }
    parse_str($plain, $fields);
    return $fields;
}

/** True when the X-Sandbox-Signature header is the HMAC-SHA256 of the raw body with our secret. */
function gateway_signature_valid(string $rawBody, string $header, string $secret): bool
{
    // hash_equals compares in constant time: a plain == would leak how much of a forgery matched.
    return hash_equals('sha256=' . hash_hmac('sha256', $rawBody, $secret), $header);
}

/** POSTs to the gateway; returns [HTTP status, decoded JSON answer]. */
function gateway_post(string $url, string $body, string $contentType): array
{
    $context = stream_context_create(['http' => [
        'method' => 'POST',
        'header' => "Content-Type: $contentType\r\nAccept: application/json",
        'content' => $body,
        // A 4xx answer carries the reason in its body: read it instead of failing.
        'ignore_errors' => true,
        'timeout' => 10,
    ]]);
    $answer = file_get_contents($url, false, $context);
    if ($answer === false) {
        throw new RuntimeException("the gateway at $url did not answer");
    }
    preg_match('#^HTTP/\S+ (\d{3})#', $http_response_header[0] ?? '', $status);
    return [(int) ($status[1] ?? 0), json_decode($answer, true) ?? []];
}

/** Pays by encrypted S2S (POST /api/s2s/encrypt); returns [HTTP status, the gateway's answer]. */
function gateway_pay_encrypted(array $config, array $params): array
{
    $params += ['public_key' => $config['public_key'], 'terNO' => $config['terNO'], 'encryption_method' => 'aes256'];
    $encrypted = gateway_encrypt($params, $config['private_key'], $config['public_key']);
    // The ciphertext holds '+' and '/': URL-encode the form field, or '+' arrives as a space.
    return gateway_post($config['gateway_url'] . '/api/s2s/encrypt', http_build_query(['encrypted_data' => $encrypted]), 'application/x-www-form-urlencoded');
}

/** Asks for a refund of a transaction; returns [HTTP status, the gateway's answer]. */
function gateway_refund(array $config, string $transID, string $amount): array
{
    $body = json_encode(['transID' => $transID, 'refundAmount' => $amount, 'public_key' => $config['public_key']]);
    return gateway_post($config['gateway_url'] . '/api/transactions/refund-request', $body, 'application/json');
}
