from shop import tax


def receipt_line(net_cents, rate):
    return f"VAT: {tax.vat_amount(net_cents, rate) / 100:.2f}"
