"""Reports over the order export (a list of dicts with "customer" and "cents")."""


def top_customers(rows, n):
    """The n customers with the highest total, as (customer, total_cents) pairs, highest first.

    Ties are broken by the customer's name, alphabetically. Rows without a customer are ignored.
    """
    raise NotImplementedError
