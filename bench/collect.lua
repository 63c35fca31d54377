-- wrk script: POST /v1/collect with a JSON body (bench/worker-ab.mjs passes the key in SK).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SK")
wrk.body = '{"amount": 125.5, "currency": "USD", "email": "bench@example.com"}'
