"""A small shop backend on the standard library: it pays by plain-JSON S2S and through the /v1/
payment API (with an Idempotency-Key), and takes the gateway's signed webhooks on its own
http.server. The webhook, not the customer's return, decides an order's status.

    shop = Shop("http://127.0.0.1:4010", merchant).start()   # merchant: terNO, public_key, api_key, webhook_secret
    answer = shop.pay_by_card("order-1", "12.00", "4000000000003220")
"""

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

from sandbox import request

# What each S2S order_status means for the order (the gateway's status table).
S2S_STATUS = {"25": "paid", "24": "declined", "3": "cancelled", "22": "expired", "5": "refunded", "6": "partially_refunded"}
# What each /v1/ event means for the order.
V1_EVENT_STATUS = {"payment.captured": "paid", "payment.declined": "declined", "payment.canceled": "cancelled", "payment.expired": "expired"}


class WebhookServer(ThreadingHTTPServer):
    """http.server with a listen backlog for bursts: socketserver's default of 5 drops the connections
    beyond it while the accepting thread waits for the GIL, and the gateway's client then waits for
    TCP to try again (1 s, then 3 s, then 7 s), which can outlast its 5 s webhook timeout."""

    request_queue_size = 128


def signature_is_valid(raw_body, header, secret):
    """X-Sandbox-Signature is sha256=<hex HMAC-SHA256 of the raw body>; compared in constant time."""
    expected = "sha256=" + hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header or "")


class Shop:
    """The shop: its orders by reference, and the webhooks it accepted."""

    def __init__(self, gateway_url, merchant):
        self.gateway_url = gateway_url
        self.merchant = merchant
        self.orders = {}
        self.webhooks = []
        self.event_ids = set()
        self.payment_ids = set()
        self.lock = threading.Lock()
        self.server = None
        self.url = None

    def start(self):
        """Listens on 127.0.0.1 and a free port for webhooks and returning customers."""
        shop = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = shop.handle_webhook(raw, self.headers) if self.path == "/webhooks" else 404
                self.send_response(status)
                self.end_headers()

            def do_GET(self):
                # The customer's return: the query is typed by their browser, so it decides nothing.
                self.send_response(200 if self.path.startswith("/return") else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(b"<!DOCTYPE html><p>Thank you! We are confirming your payment.</p>")

            def log_message(self, *args):
                pass

        self.server = WebhookServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def close(self):
        """Stops listening."""
        self.server.shutdown()
        self.server.server_close()

    def pay_by_card(self, reference, amount, card):
        """Pays by plain-JSON S2S (POST /api/s2s); returns (HTTP status, the gateway's answer)."""
        with self.lock:
            self.orders[reference] = {"status": "awaiting_payment", "transID": None}
        status, _, answer = request("POST", f"{self.gateway_url}/api/s2s", {
            "public_key": self.merchant["public_key"], "terNO": self.merchant["terNO"],
            "bill_amt": amount, "bill_currency": "EUR", "product_name": "Blue mug", "reference": reference,
            "webhook_url": f"{self.url}/webhooks", "return_url": f"{self.url}/return",
            "mop": "CC", "ccno": card, "ccvv": "123", "month": "12", "year": "30",
        })
        if status == 200:
            with self.lock:
                self.orders[reference]["transID"] = answer["transID"]
        return status, answer

    def charge(self, reference, amount, token, idempotency_key):
        """Creates a /v1/ payment; the same key after a timeout gets the first answer again, not a second charge.

        Returns (the payment, whether the gateway replayed it)."""
        with self.lock:
            self.orders.setdefault(reference, {"status": "awaiting_payment", "transID": None})
        status, headers, payment = request("POST", f"{self.gateway_url}/v1/payments", {
            "amount": amount, "currency": "EUR", "token": token, "reference": reference,
            "return_url": f"{self.url}/return", "webhook_url": f"{self.url}/webhooks",
        }, {"Authorization": f"Bearer {self.merchant['api_key']}", "Idempotency-Key": idempotency_key})
        if status != 200:
            raise RuntimeError(f"POST /v1/payments answered {status}: {payment}")
        with self.lock:
            self.payment_ids.add(payment["id"])
        return payment, headers.get("Idempotent-Replayed") == "true"

    def payments(self):
        """The merchant's /v1/ payments, newest first (GET /v1/payments)."""
        status, _, page = request("GET", f"{self.gateway_url}/v1/payments?limit=100", headers={"Authorization": f"Bearer {self.merchant['api_key']}"})
        if status != 200:
            raise RuntimeError(f"GET /v1/payments answered {status}: {page}")
        return page["data"]

    def handle_webhook(self, raw, headers):
        """Verifies a webhook, applies it once, and answers the HTTP status to send back."""
        if not signature_is_valid(raw, headers.get("X-Sandbox-Signature"), self.merchant["webhook_secret"]):
            return 400  # not a 2xx: a genuine delivery would be retried, a forged one is dropped
        event_id = headers.get("X-Sandbox-Event-Id")
        with self.lock:
            if event_id in self.event_ids:
                return 200  # delivered twice (at least once): already handled
            self.event_ids.add(event_id)
            if headers.get("Content-Type", "").startswith("application/json"):
                # /v1/: the {event, id, data, created_at} envelope.
                envelope = json.loads(raw)
                reference, status = envelope["data"].get("reference"), V1_EVENT_STATUS.get(envelope["event"])
                self.webhooks.append({"kind": "v1", "event": envelope["event"], "reference": reference, "id": envelope["data"].get("payment_id")})
            else:
                # S2S: the status fields as a form.
                fields = dict(parse_qsl(raw.decode()))
                reference, status = fields.get("reference"), S2S_STATUS.get(fields.get("order_status"))
                self.webhooks.append({"kind": "s2s", "event": fields.get("status"), "reference": reference, "id": fields.get("transID")})
            order = self.orders.get(reference)
            if order is not None and status is not None and order["status"] == "awaiting_payment":
                order["status"] = status
        return 200

    def order_status(self, reference):
        """The order's status as the webhooks left it."""
        with self.lock:
            return self.orders[reference]["status"]
