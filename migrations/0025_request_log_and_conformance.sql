CREATE TABLE "conformance_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"url" text NOT NULL,
	"state" text NOT NULL,
	"seed" integer NOT NULL,
	"timeout_ms" integer NOT NULL,
	"scenarios" jsonb NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "request_logs" (
	"id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"operation" text,
	"status" integer NOT NULL,
	"error_code" text,
	"idempotency_key" text,
	"latency_ms" integer NOT NULL,
	"source" text NOT NULL,
	"query" text,
	"request_body" text,
	"response_body" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "request_logs_pkey" PRIMARY KEY("merchant_id","id")
);
--> statement-breakpoint
CREATE INDEX "conformance_runs_endpoint_idx" ON "conformance_runs" USING btree ("endpoint_id","id");--> statement-breakpoint
CREATE INDEX "conformance_runs_merchant_idx" ON "conformance_runs" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "conformance_runs_one_running" ON "conformance_runs" USING btree ("endpoint_id") WHERE "conformance_runs"."state" = 'running';