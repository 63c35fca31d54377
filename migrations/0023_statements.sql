CREATE TABLE "statements" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"currency" text NOT NULL,
	"date" text NOT NULL,
	"period_start" timestamp (3) with time zone NOT NULL,
	"period_end" timestamp (3) with time zone NOT NULL,
	"opening_ledger" bigint NOT NULL,
	"closing_ledger" bigint NOT NULL,
	"opening_available" bigint NOT NULL,
	"closing_available" bigint NOT NULL,
	"credits_total" bigint NOT NULL,
	"credit_count" integer NOT NULL,
	"debits_total" bigint NOT NULL,
	"debit_count" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "statements_day_uq" ON "statements" USING btree ("merchant_id","currency","date");--> statement-breakpoint
CREATE INDEX "statements_merchant_idx" ON "statements" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "ledger_postings_time_idx" ON "ledger_postings" USING btree ("merchant_id","currency","created_at");