DROP INDEX "disputes_card_payment_idx";--> statement-breakpoint
ALTER TABLE "card_payments" ADD COLUMN "amount_disputed" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "card_payments" ADD COLUMN "captured_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "network" text DEFAULT 'visa' NOT NULL;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "network_reason_code" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "disputes_card_payment_idx" ON "disputes" USING btree ("card_payment_id");--> statement-breakpoint
UPDATE "card_payments" SET "captured_at" = COALESCE("authorized_at", "created_at") WHERE "amount_captured" > 0;--> statement-breakpoint
UPDATE "card_payments" p SET "amount_disputed" = d."amount" FROM "disputes" d WHERE d."card_payment_id" = p."id";--> statement-breakpoint
UPDATE "disputes" d SET "network" = p."brand" FROM "card_payments" p WHERE p."id" = d."card_payment_id";--> statement-breakpoint
UPDATE "disputes" d SET "network_reason_code" = CASE
    WHEN d.network = 'visa' AND d.reason = 'fraudulent' THEN '10.4'
    WHEN d.network = 'visa' AND d.reason = 'unrecognized' THEN '10.4'
    WHEN d.network = 'visa' AND d.reason = 'general' THEN '12.5'
    WHEN d.network = 'visa' AND d.reason = 'duplicate' THEN '12.6.1'
    WHEN d.network = 'visa' AND d.reason = 'product_not_received' THEN '13.1'
    WHEN d.network = 'visa' AND d.reason = 'subscription_canceled' THEN '13.2'
    WHEN d.network = 'visa' AND d.reason = 'product_unacceptable' THEN '13.3'
    WHEN d.network = 'visa' AND d.reason = 'credit_not_processed' THEN '13.6'
    WHEN d.network = 'mastercard' AND d.reason = 'duplicate' THEN '4834'
    WHEN d.network = 'mastercard' AND d.reason = 'fraudulent' THEN '4837'
    WHEN d.network = 'mastercard' AND d.reason = 'product_not_received' THEN '4853'
    WHEN d.network = 'mastercard' AND d.reason = 'product_unacceptable' THEN '4853'
    WHEN d.network = 'mastercard' AND d.reason = 'subscription_canceled' THEN '4853'
    WHEN d.network = 'mastercard' AND d.reason = 'credit_not_processed' THEN '4853'
    WHEN d.network = 'mastercard' AND d.reason = 'general' THEN '4853'
    WHEN d.network = 'mastercard' AND d.reason = 'unrecognized' THEN '4863'
    WHEN d.network = 'amex' AND d.reason = 'credit_not_processed' THEN 'C02'
    WHEN d.network = 'amex' AND d.reason = 'product_not_received' THEN 'C08'
    WHEN d.network = 'amex' AND d.reason = 'subscription_canceled' THEN 'C28'
    WHEN d.network = 'amex' AND d.reason = 'product_unacceptable' THEN 'C31'
    WHEN d.network = 'amex' AND d.reason = 'fraudulent' THEN 'F29'
    WHEN d.network = 'amex' AND d.reason = 'unrecognized' THEN 'F29'
    WHEN d.network = 'amex' AND d.reason = 'general' THEN 'P05'
    WHEN d.network = 'amex' AND d.reason = 'duplicate' THEN 'P08'
    ELSE ''
  END;
