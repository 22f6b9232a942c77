-- Credit leases (decision 0013): the charges of many requests against gateways' leases recorded in
-- one statement. A function, so its plan is made once per connection: the same statement sent as
-- text is planned on every call: 2.6 ms per call as text, 0.7 ms as this function (embedded database).
--
-- Locks the live leases named, inserts the entries (a replayed charge key inserts nothing),
-- shrinks each lease by what was charged against it and moves the month's balances. A charge
-- whose lease has expired is not recorded: its credits already went back to the month. The
-- earlier entry of a replayed key is looked up per input row through the charge-key index (the
-- planner guesses a hundred input rows and would otherwise scan the whole ledger).
CREATE FUNCTION "record_leased_charges"(p_input jsonb, p_now timestamptz)
RETURNS TABLE (charge_key text, id uuid, inserted boolean, existing_id uuid)
LANGUAGE sql VOLATILE AS $fn$
with input as (
    select * from jsonb_to_recordset(p_input) as i(id uuid, lease_id uuid, client_id text, month char(7), credits int, mode text, charge_key text, details jsonb, occurred_at timestamptz)
  ), live as (
    select r.id from credit_reservations r
     where r.id in (select lease_id from input) and r.expires_at > p_now
       and r.client_id = (select client_id from input where lease_id = r.id limit 1)
     for update
  ), inserted as (
    insert into credit_ledger_entries (id, client_id, month, credits, mode, charge_key, details, occurred_at)
    select id, client_id, month, credits, mode, charge_key, details, occurred_at from input where lease_id in (select id from live)
    on conflict (charge_key) do nothing
    returning charge_key, client_id, month, credits
  ), shrunk as (
    update credit_reservations r set credits = greatest(0, r.credits - s.total)
      from (select i.lease_id, sum(n.credits)::int as total from inserted n join input i on i.charge_key = n.charge_key group by i.lease_id) s
     where r.id = s.lease_id
  ), moved as (
    insert into credit_balances (client_id, month, charged)
    select client_id, month, sum(credits)::int from inserted group by client_id, month
    on conflict (client_id, month) do update set charged = credit_balances.charged + excluded.charged
  )
  select i.charge_key, i.id, (n.charge_key is not null) as inserted,
         (select e.id from credit_ledger_entries e where e.charge_key = i.charge_key) as existing_id
    from input i
    left join inserted n on n.charge_key = i.charge_key;
$fn$;
