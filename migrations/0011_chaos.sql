CREATE TABLE "chaos_settings" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"faults" text NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chaos_settings" ADD CONSTRAINT "chaos_settings_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;