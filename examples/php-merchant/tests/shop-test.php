<?php
// Drives the shop against a running sandbox, as a customer's browser and the shop's back office
// would: its own merchant from `sandbox merchants create --json`, the shop on PHP's built-in
// server, then approve (3-D Secure on the bank page), decline, refund and a forged webhook.
//
//   SANDBOX_URL=http://127.0.0.1:4010 php tests/shop-test.php          (SANDBOX_CLI: default "npx sandbox")
//   php tests/shop-test.php --list                                     (the case names only)
//
// Prints TAP: "ok N - name" or "not ok N - name" with "# why" lines under it; exits 1 on a failure.

declare(strict_types=1);

/** Each case: its name and what it does with the shop. */
$cases = [
    'approve: 3-D Secure passed on the bank page, the customer returns, the webhook marks the order paid' => 'case_approve',
    'decline: a declined card leaves the order declined with the reason' => 'case_decline',
    'refund: a paid order is refunded in full and the refund webhook says so' => 'case_refund',
    'a webhook with a wrong signature is refused with 400 and changes nothing' => 'case_forged_webhook',
];

if (in_array('--list', $argv, true)) {
    echo implode("\n", array_keys($cases)), "\n";
    exit(0);
}

/** Fails the running case with a message. */
function check(bool $condition, string $message): void
{
    if (!$condition) {
        throw new RuntimeException($message);
    }
}

/** Polls $probe until it returns something other than null, for at most $seconds. */
function wait_for(callable $probe, string $what, float $seconds = 10.0)
{
    $deadline = microtime(true) + $seconds;
    while (true) {
        $value = $probe();
        if ($value !== null) {
            return $value;
        }
        check(microtime(true) < $deadline, "timed out after {$seconds}s waiting for $what");
        usleep(50_000);
    }
}

/** One HTTP request as a browser sends it, redirects not followed: [status, Location, body]. */
function browse(string $method, string $url, array $form = [], array $headers = []): array
{
    $headers[] = 'Content-Type: application/x-www-form-urlencoded';
    $context = stream_context_create(['http' => [
        'method' => $method,
        'header' => implode("\r\n", $headers),
        'content' => http_build_query($form),
        'follow_location' => 0,
        'ignore_errors' => true,
        'timeout' => 10,
    ]]);
    $body = file_get_contents($url, false, $context);
    check($body !== false, "$method $url did not answer");
    preg_match('#^HTTP/\S+ (\d{3})#', $http_response_header[0], $status);
    $location = '';
    foreach ($http_response_header as $line) {
        if (stripos($line, 'Location:') === 0) {
            $location = trim(substr($line, 9));
        }
    }
    return [(int) $status[1], $location, $body];
}

/** The customer pays for the mug with a card; returns [order id, where the shop sends them]. */
function checkout(string $shop, string $card): array
{
    [$status, $location, $body] = browse('POST', "$shop/orders", ['ccno' => $card, 'ccvv' => '123', 'month' => '12', 'year' => '30']);
    check($status === 303, "POST /orders answered $status, not 303: $body");
    [, , $page] = browse('GET', $location);
    return [$location, $page];
}

/** The order as the shop has it. */
function order(string $shop, string $id): array
{
    [$status, , $body] = browse('GET', "$shop/orders/$id");
    check($status === 200, "GET /orders/$id answered $status: $body");
    return json_decode($body, true);
}

/** Waits until the webhook has moved the order to $status. */
function order_reaches(string $shop, string $id, string $status): array
{
    return wait_for(function () use ($shop, $id, $status) {
        $order = order($shop, $id);
        return $order['status'] === $status ? $order : null;
    }, "order $id to become $status");
}

/** The order id on a shop page ("Order <code>ord_...</code>"). */
function order_id_on(string $page): string
{
    check((bool) preg_match('/ord_[0-9a-f]{16}/', $page, $match), "no order id on the page: $page");
    return $match[0];
}

function case_approve(string $shop, array $merchant): void
{
    [$authurl, $bankPage] = checkout($shop, '4000 0000 0000 3220');
    check(str_starts_with($authurl, getenv('SANDBOX_URL') . '/authenticate/'), "the shop did not send the customer to authurl but to $authurl");
    // The bank's page: its form, its hidden csrf field, and the test OTP that passes.
    check((bool) preg_match('/<form method="post" action="([^"]+)"/', $bankPage, $action), 'no form on the 3-D Secure page');
    check((bool) preg_match('/name="csrf" value="([^"]+)"/', $bankPage, $csrf), 'no csrf field on the 3-D Secure page');
    [$status, $returnUrl] = browse('POST', getenv('SANDBOX_URL') . $action[1], ['csrf' => $csrf[1], 'otp' => '123456', 'action' => 'submit']);
    check($status === 303 && str_starts_with($returnUrl, "$shop/return?"), "the bank page answered $status to $returnUrl, not the shop's return_url");
    [$status, , $thanks] = browse('GET', $returnUrl);
    $id = order_id_on($thanks);
    check($status === 200 && order($shop, $id)['returned'], "the return page answered $status");
    $order = order_reaches($shop, $id, 'paid');
    check($order['gateway_status'] === 'Test Approved', "the decrypted webhook said {$order['gateway_status']}");
    check($order['card'] === '400000XXXXXX3220', "the webhook's masked card is {$order['card']}");
}

function case_decline(string $shop, array $merchant): void
{
    // 4000000000000002 is declined at once: no bank page, the customer comes straight back.
    [$returnUrl, $thanks] = checkout($shop, '4000000000000002');
    check(str_starts_with($returnUrl, "$shop/return?"), "a declined card went to $returnUrl");
    $order = order_reaches($shop, order_id_on($thanks), 'declined');
    check(str_starts_with((string) $order['gateway_response'], 'card_declined'), "the decline reason is {$order['gateway_response']}");
}

function case_refund(string $shop, array $merchant): void
{
    [, $thanks] = checkout($shop, '4242424242424242');
    $id = order_id_on($thanks);
    order_reaches($shop, $id, 'paid');
    [$status, , $body] = browse('POST', "$shop/orders/$id/refund");
    $answer = json_decode($body, true);
    check($status === 202 && $answer['gateway']['status'] === 'Request Processed', "the refund answered $status: $body");
    // The gateway completes the refund a little later and says so by webhook.
    $order = order_reaches($shop, $id, 'refunded');
    check($order['gateway_status'] === 'Refunded', "the refund webhook said {$order['gateway_status']}");
}

function case_forged_webhook(string $shop, array $merchant): void
{
    [, $thanks] = checkout($shop, '4000000000003220');
    $id = order_id_on($thanks);
    $before = order($shop, $id);
    $body = http_build_query(['transID' => $before['transID'], 'reference' => $id, 'order_status' => '25', 'status' => 'Test Approved']);
    $forged = 'sha256=' . hash_hmac('sha256', $body, 'whsec_not_the_merchants');
    $context = stream_context_create(['http' => ['method' => 'POST', 'content' => $body, 'ignore_errors' => true,
        'header' => "Content-Type: application/x-www-form-urlencoded\r\nX-Sandbox-Signature: $forged"]]);
    file_get_contents("$shop/webhooks", false, $context);
    check(str_contains($http_response_header[0], ' 400 '), "the forged webhook was answered {$http_response_header[0]}");
    check(order($shop, $id)['status'] === 'awaiting_payment', 'the forged webhook changed the order');
}

/** The merchant this run owns: a fresh one, so nothing of another suite's shows up. */
function create_merchant(string $sandboxUrl): array
{
    $cli = getenv('SANDBOX_CLI') ?: 'npx sandbox';
    $command = "$cli merchants create --name 'PHP example shop' --json --url " . escapeshellarg($sandboxUrl);
    exec("$command 2>&1", $output, $code);
    $merchant = json_decode(implode("\n", $output), true);
    if ($code !== 0 || !isset($merchant['terNO'], $merchant['public_key'], $merchant['private_key'], $merchant['webhook_secret'])) {
        throw new RuntimeException("`$command` failed (exit $code): " . implode("\n", $output));
    }
    return $merchant;
}

/** Starts the shop on a free port with the merchant's credentials; returns [process, URL]. */
function start_shop(string $sandboxUrl, array $merchant, string $log): array
{
    $env = getenv() + [
        'GATEWAY_URL' => $sandboxUrl,
        'TERNO' => (string) $merchant['terNO'],
        'PUBLIC_KEY' => $merchant['public_key'],
        'PRIVATE_KEY' => $merchant['private_key'],
        'WEBHOOK_SECRET' => $merchant['webhook_secret'],
        'ORDERS_DIR' => dirname($log) . '/orders',
    ];
    $process = proc_open([PHP_BINARY, '-S', '127.0.0.1:0', 'shop.php'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes, dirname(__DIR__), $env);
    // Port 0: the server picks a free port and names it in its first log line.
    $url = wait_for(function () use ($log, $process) {
        check(proc_get_status($process)['running'], 'the shop exited: ' . file_get_contents($log));
        return preg_match('#\((http://127\.0\.0\.1:\d+)\) started#', (string) file_get_contents($log), $m) ? $m[1] : null;
    }, 'the shop to start');
    return [$process, $url];
}

$sandboxUrl = rtrim((string) getenv('SANDBOX_URL'), '/');
if ($sandboxUrl === '') {
    fwrite(STDERR, "Set SANDBOX_URL to a running sandbox, e.g. SANDBOX_URL=http://127.0.0.1:4010\n");
    exit(2);
}
$work = sys_get_temp_dir() . '/php-merchant-test-' . bin2hex(random_bytes(4));
mkdir($work);
$merchant = create_merchant($sandboxUrl);
[$shopProcess, $shopUrl] = start_shop($sandboxUrl, $merchant, "$work/shop.log");
echo "# merchant {$merchant['id']} (terNO {$merchant['terNO']}), shop at $shopUrl\n";
echo '1..', count($cases), "\n";
$failed = 0;
$number = 0;
foreach ($cases as $name => $run) {
    $number++;
    try {
        $run($shopUrl, $merchant);
        echo "ok $number - $name\n";
    } catch (Throwable $error) {
        $failed++;
        echo "not ok $number - $name\n";
        foreach (explode("\n", $error->getMessage() . "\n" . $error->getFile() . ':' . $error->getLine()) as $line) {
            echo "# $line\n";
        }
    }
}
proc_terminate($shopProcess);
proc_close($shopProcess);
if ($failed === 0) {
    // Keep the shop's log and orders of a failed run to look at.
    exec('rm -rf ' . escapeshellarg($work));
} else {
    echo "# the shop's log and orders: $work\n";
}
exit($failed === 0 ? 0 : 1);
