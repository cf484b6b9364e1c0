"""The shop's tests against one sandbox process. Each class has its own merchant and its own shop
(its webhook receiver), so the classes can run in parallel (run_tests.py) and still never see
each other's payments: every class uses the same references, which only have to be unique per
merchant, and every list and webhook holds that class's own payments only.

    python3 run_tests.py          # the classes in parallel, one sandbox
    python3 -m unittest -v        # the same tests one after another
"""

import json
import unittest
import urllib.error
import urllib.request

from sandbox import shared_sandbox, wait_for
from shop import Shop


class MerchantTestCase(unittest.TestCase):
    """A fresh merchant and a shop listening for its webhooks, for the whole class."""

    @classmethod
    def setUpClass(cls):
        cls.sandbox = shared_sandbox()
        cls.merchant = cls.sandbox.create_merchant(f"python {cls.__name__}")
        cls.shop = Shop(cls.sandbox.url, cls.merchant).start()

    @classmethod
    def tearDownClass(cls):
        cls.shop.close()
        cls.sandbox.delete_merchant(cls.merchant["id"])

    def wait_for_order(self, reference, status):
        """Waits until the shop's webhook handler has moved the order to status."""
        wait_for(lambda: self.shop.order_status(reference) == status, f"order {reference} to become {status} (it is {self.shop.order_status(reference)})")

    def assert_webhooks_are_own(self):
        """Every webhook this shop accepted is about a payment of this merchant."""
        mine = {order["transID"] for order in self.shop.orders.values()} | self.shop.payment_ids
        strangers = [hook for hook in self.shop.webhooks if hook["id"] not in mine]
        self.assertEqual(strangers, [], "webhooks of another merchant's payments reached this shop")


class CardPaymentTest(MerchantTestCase):
    """Plain-JSON S2S: 3-D Secure completed through the control API, declines, references."""

    def test_3ds_challenge_approved_through_the_control_api(self):
        status, answer = self.shop.pay_by_card("order-1", "12.00", "4000000000003220")
        self.assertEqual((status, answer["status"]), (200, "Pending"), answer)
        self.assertTrue(answer["authurl"].startswith(f"{self.sandbox.url}/authenticate/"))
        # The customer would pass 3-D Secure on authurl; the control API does it without a browser.
        done = self.sandbox.authenticate(answer["transID"], "approve")
        self.assertTrue(done["redirect_url"].startswith(f"{self.shop.url}/return?"), done)
        self.wait_for_order("order-1", "paid")
        self.assert_webhooks_are_own()

    def test_declined_card(self):
        status, answer = self.shop.pay_by_card("order-2", "12.00", "4000000000000002")
        self.assertEqual((status, answer["status"]), (200, "Test Declined"), answer)
        self.assertTrue(answer["response"].startswith("card_declined"), answer["response"])
        self.wait_for_order("order-2", "declined")

    def test_a_reference_is_unique_per_merchant_only(self):
        # "order-1" is used by the other classes' merchants too, at the same time: no conflict.
        self.shop.pay_by_card("order-1", "12.00", "4242424242424242")
        status, answer = self.shop.pay_by_card("order-1", "12.00", "4242424242424242")
        self.assertEqual((status, answer["error"]["code"]), (409, "reference_in_use"), answer)


class PaymentApiTest(MerchantTestCase):
    """The /v1/ payment API: an Idempotency-Key makes a retry safe; lists hold this merchant's payments."""

    def test_the_same_idempotency_key_returns_the_first_payment(self):
        first, replayed = self.shop.charge("order-1", 1200, "tok_visa", "order-1-attempt")
        again, replayed_again = self.shop.charge("order-1", 1200, "tok_visa", "order-1-attempt")
        self.assertEqual((replayed, replayed_again), (False, True))
        self.assertEqual(again["id"], first["id"])
        self.assertEqual([p["id"] for p in self.shop.payments() if p["reference"] == "order-1"], [first["id"]])
        self.wait_for_order("order-1", "paid")

    def test_3ds_payment_completed_through_the_control_api(self):
        payment, _ = self.shop.charge("order-2", 2500, "tok_threeds_required", "order-2-attempt")
        self.assertEqual(payment["status"], "requires_action")
        self.sandbox.authenticate(payment["id"], "approve")
        self.wait_for_order("order-2", "paid")

    def test_the_list_holds_only_this_merchants_payments(self):
        for n in range(3, 6):
            self.shop.charge(f"order-{n}", 100 * n, "tok_visa", f"order-{n}-attempt")
        # Exactly what this class created, while the other classes create theirs at the same time.
        self.assertEqual({p["id"] for p in self.shop.payments()}, self.shop.payment_ids)
        self.assert_webhooks_are_own()


class WebhookTest(MerchantTestCase):
    """Webhooks reach this merchant's receiver only, signed with this merchant's secret."""

    def test_signed_webhooks_reach_this_merchants_receiver(self):
        self.shop.pay_by_card("order-1", "12.00", "4242424242424242")
        self.shop.charge("order-2", 1200, "tok_visa", "order-2-attempt")
        self.wait_for_order("order-1", "paid")
        self.wait_for_order("order-2", "paid")
        self.assert_webhooks_are_own()

    def test_a_forged_signature_is_refused(self):
        body = json.dumps({"event": "payment.captured", "id": "evt_forged", "data": {"reference": "order-3"}}).encode()
        req = urllib.request.Request(f"{self.shop.url}/webhooks", data=body, method="POST", headers={
            "Content-Type": "application/json", "X-Sandbox-Signature": "sha256=" + "0" * 64, "X-Sandbox-Event-Id": "evt_forged"})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=10)
        self.assertEqual(refused.exception.code, 400)
        self.assertNotIn("evt_forged", self.shop.event_ids)


if __name__ == "__main__":
    unittest.main()
