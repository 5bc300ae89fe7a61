"""Reports over the order export (a list of dicts with "customer" and "cents")."""


def top_customers(rows, n):
    """The n customers with the highest total, as (customer, total_cents) pairs, highest first.

    Ties are broken by the customer's name, alphabetically. Rows without a customer are ignored.
    """
    totals = {}
    for row in rows:
        customer = row.get("customer")
        if not customer:
            continue
        totals[customer] = totals.get(customer, 0) + row["cents"]
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
