from shop.tax import vat_amount


def invoice_total(net_cents, rate):
    return net_cents + vat_amount(net_cents, rate)
