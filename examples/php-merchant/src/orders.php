<?php
// The order book: one JSON file per order (a database table in a real shop). An order moves
// awaiting_payment -> paid | declined | cancelled | expired, and paid -> refunded; the webhook
// moves it, never the customer's return.

declare(strict_types=1);

/** The order status each S2S order_status leads to (the gateway's status table). */
const ORDER_STATUS_OF = ['25' => 'paid', '24' => 'declined', '3' => 'cancelled', '22' => 'expired', '5' => 'refunded', '6' => 'partially_refunded'];

/** Which statuses an order may move to from each one: a late or repeated webhook never moves it back. */
const ORDER_NEXT = [
    'awaiting_payment' => ['paid', 'declined', 'cancelled', 'expired'],
    'paid' => ['refunded', 'partially_refunded'],
    'partially_refunded' => ['refunded', 'partially_refunded'],
];

/** The file of an order; ids are checked so a path can never leave the folder. */
function order_file(string $id): string
{
    if (!preg_match('/^ord_[0-9a-f]{16}$/', $id)) {
        throw new InvalidArgumentException("not an order id: $id");
    }
    $dir = getenv('ORDERS_DIR') ?: sys_get_temp_dir() . '/php-merchant-orders';
    if (!is_dir($dir)) {
        mkdir($dir, 0700, true);
    }
    return "$dir/$id.json";
}

/** Opens an order for an amount such as "12.00". */
function order_create(string $amount, string $currency, string $product): array
{
    $order = [
        'id' => 'ord_' . bin2hex(random_bytes(8)),
        'amount' => $amount,
        'currency' => $currency,
        'product' => $product,
        'status' => 'awaiting_payment',
        'transID' => null,
        'gateway_status' => null,
        'gateway_response' => null,
        'card' => null,
        'returned' => false,
        'events' => [],
    ];
    order_save($order);
    return $order;
}

/** The order, or null when there is none with that id. */
function order_find(string $id): ?array
{
    $file = order_file($id);
    return is_file($file) ? json_decode((string) file_get_contents($file), true) : null;
}

/** Writes the order back. */
function order_save(array $order): void
{
    file_put_contents(order_file($order['id']), json_encode($order, JSON_PRETTY_PRINT), LOCK_EX);
}

/**
 * Applies the fields of a verified webhook once: a repeated event id changes nothing, and a
 * status the order cannot move to (an old event arriving late) is recorded but not applied.
 * Returns what happened: applied, duplicate or stale.
 */
function order_apply_webhook(array &$order, string $eventId, array $fields): string
{
    if ($eventId !== '' && in_array($eventId, $order['events'], true)) {
        return 'duplicate';
    }
    $order['events'][] = $eventId;
    $next = ORDER_STATUS_OF[$fields['order_status'] ?? ''] ?? null;
    $allowed = $next !== null && in_array($next, ORDER_NEXT[$order['status']] ?? [], true);
    if ($allowed) {
        $order['status'] = $next;
        $order['gateway_status'] = $fields['status'] ?? null;
        $order['gateway_response'] = $fields['response'] ?? null;
        $order['card'] = $fields['ccno'] ?? $order['card'];
    }
    order_save($order);
    return $allowed ? 'applied' : 'stale';
}
