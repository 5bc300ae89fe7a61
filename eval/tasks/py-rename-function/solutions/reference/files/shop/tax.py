def vat_amount(net_cents, rate_percent):
    """VAT in cents, rounded half up."""
    return (net_cents * rate_percent + 50) // 100
