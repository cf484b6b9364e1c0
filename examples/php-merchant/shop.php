<?php
// The shop, as a router script for PHP's built-in server:
//   GATEWAY_URL=http://127.0.0.1:4010 TERNO=1001 PUBLIC_KEY=pk_test_1001 PRIVATE_KEY=pv_test_1001 \
//   WEBHOOK_SECRET=whsec_test_sandbox php -S 127.0.0.1:8000 shop.php
//
//   GET  /                     the product page with a card form
//   POST /orders               opens an order, pays by encrypted S2S, sends the customer to authurl
//   GET  /return               where the customer comes back: a waiting page, it decides nothing
//   GET  /orders/{id}          the order as JSON (what the shop's own pages would poll)
//   POST /orders/{id}/refund   refunds a paid order in full
//   POST /webhooks             the gateway's signed (and encrypted) status updates

declare(strict_types=1);

require __DIR__ . '/src/gateway.php';
require __DIR__ . '/src/orders.php';

/** The one product of the shop. */
const PRODUCT = ['name' => 'Blue mug', 'amount' => '12.00', 'currency' => 'EUR'];

$config = [
    'gateway_url' => rtrim((string) getenv('GATEWAY_URL'), '/'),
    'terNO' => (string) getenv('TERNO'),
    'public_key' => (string) getenv('PUBLIC_KEY'),
    'private_key' => (string) getenv('PRIVATE_KEY'),
    'webhook_secret' => (string) getenv('WEBHOOK_SECRET'),
];
foreach ($config as $name => $value) {
    if ($value === '' || $value === '/') {
        http_response_code(500);
        exit("The shop is not configured: set GATEWAY_URL, TERNO, PUBLIC_KEY, PRIVATE_KEY and WEBHOOK_SECRET.\n");
    }
}
// The shop's own address, for webhook_url and return_url. A live shop takes it from its
// configuration; the built-in server on a free port only knows it from the request.
$shopUrl = 'http://' . $_SERVER['HTTP_HOST'];

$method = $_SERVER['REQUEST_METHOD'];
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);

/** Answers with JSON. */
function send_json(int $status, array $body): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    echo json_encode($body), "\n";
}

/** Answers with a small HTML page; $html is already escaped. */
function send_page(int $status, string $title, string $html): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=utf-8');
    echo '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>', htmlspecialchars($title), '</title></head><body>',
        '<h1>', htmlspecialchars($title), '</h1>', $html, '</body></html>';
}

if ($method === 'GET' && $path === '/') {
    $price = htmlspecialchars(PRODUCT['name'] . ': ' . PRODUCT['amount'] . ' ' . PRODUCT['currency']);
    send_page(200, 'Checkout', "<p>$price</p><form method=\"post\" action=\"/orders\">"
        . '<label>Card number <input name="ccno" required></label> <label>Month <input name="month" size="2" required></label> '
        . '<label>Year <input name="year" size="2" required></label> <label>CVV <input name="ccvv" size="4" required></label> '
        . '<button>Pay</button></form>');
    return;
}

if ($method === 'POST' && $path === '/orders') {
    foreach (['ccno', 'ccvv', 'month', 'year'] as $field) {
        if (!preg_match('/^[0-9 ]{2,23}$/', $_POST[$field] ?? '')) {
            send_page(400, 'Check your card', '<p>' . htmlspecialchars("$field is missing or not a number") . '</p>');
            return;
        }
    }
    $order = order_create(PRODUCT['amount'], PRODUCT['currency'], PRODUCT['name']);
    [$status, $answer] = gateway_pay_encrypted($config, [
        'bill_amt' => $order['amount'],
        'bill_currency' => $order['currency'],
        'product_name' => $order['product'],
        'reference' => $order['id'],
        'webhook_url' => "$shopUrl/webhooks",
        'return_url' => "$shopUrl/return",
        'mop' => 'CC',
        'ccno' => str_replace(' ', '', $_POST['ccno']),
        'ccvv' => $_POST['ccvv'],
        'month' => $_POST['month'],
        'year' => $_POST['year'],
    ]);
    if ($status !== 200) {
        $order['status'] = 'failed';
        $order['gateway_response'] = $answer['error']['message'] ?? "HTTP $status";
        order_save($order);
        send_page(502, 'Payment not started', '<p>' . htmlspecialchars($order['gateway_response']) . '</p>');
        return;
    }
    // Keep the transID for reconciliation and refunds; the status itself waits for the webhook.
    $order['transID'] = $answer['transID'];
    order_save($order);
    // 3-D Secure: the customer goes to the bank's page; a card without a challenge comes straight back.
    header('Location: ' . (($answer['authurl'] ?? '') !== '' ? $answer['authurl'] : "$shopUrl/return?reference={$order['id']}"), true, 303);
    return;
}

if ($method === 'GET' && $path === '/return') {
    // The query (status=Test+Approved&...) is typed by the customer's browser: never trust it.
    // It only says which order to show; the webhook decides the order's status.
    $order = preg_match('/^ord_[0-9a-f]{16}$/', $_GET['reference'] ?? '') ? order_find($_GET['reference']) : null;
    if ($order === null) {
        send_page(404, 'Order not found', '<p>We could not find that order.</p>');
        return;
    }
    $order['returned'] = true;
    order_save($order);
    $message = $order['status'] === 'awaiting_payment' ? 'We are confirming your payment.' : "Your order is {$order['status']}.";
    send_page(200, 'Thank you', '<p>Order <code>' . htmlspecialchars($order['id']) . '</code>: ' . htmlspecialchars($message) . '</p>');
    return;
}

if (preg_match('#^/orders/(ord_[0-9a-f]{16})(/refund)?$#', $path, $match)) {
    $order = order_find($match[1]);
    if ($order === null) {
        send_json(404, ['error' => "no order {$match[1]}"]);
    } elseif ($method === 'GET' && !isset($match[2])) {
        send_json(200, $order);
    } elseif ($method === 'POST' && isset($match[2])) {
        if ($order['status'] !== 'paid') {
            send_json(409, ['error' => "order {$order['id']} is {$order['status']}; only a paid order can be refunded"]);
            return;
        }
        [$status, $answer] = gateway_refund($config, $order['transID'], $order['amount']);
        // "Request Processed" means accepted: the refund's outcome arrives by webhook.
        send_json($status === 200 ? 202 : 502, ['order' => $order, 'gateway' => $answer]);
    } else {
        send_json(405, ['error' => "$method is not allowed on $path"]);
    }
    return;
}

if ($method === 'POST' && $path === '/webhooks') {
    // Verify the raw bytes as they arrived, before parsing anything.
    $raw = (string) file_get_contents('php://input');
    if (!gateway_signature_valid($raw, $_SERVER['HTTP_X_SANDBOX_SIGNATURE'] ?? '', $config['webhook_secret'])) {
        // Not a 2xx: a genuine delivery would be retried, a forged one is dropped.
        send_json(400, ['error' => 'bad signature']);
        return;
    }
    parse_str($raw, $form);
    $fields = isset($form['data']) ? gateway_decrypt($form['data'], $config['private_key'], $config['public_key']) : $form;
    $order = is_array($fields) && preg_match('/^ord_[0-9a-f]{16}$/', $fields['reference'] ?? '') ? order_find($fields['reference']) : null;
    // The transID is saved before POST /orders answers; the built-in server handles one request at
    // a time, so a webhook never overtakes it (with several workers, a 400 here is retried later).
    if ($order === null || $order['transID'] !== ($fields['transID'] ?? null)) {
        send_json(400, ['error' => 'the webhook names no order of this shop']);
        return;
    }
    $outcome = order_apply_webhook($order, $_SERVER['HTTP_X_SANDBOX_EVENT_ID'] ?? '', $fields);
    send_json(200, ['outcome' => $outcome]);
    return;
}

send_json(404, ['error' => "no route $method $path"]);
