from shop.tax import calc_vat


def invoice_total(net_cents, rate):
    return net_cents + calc_vat(net_cents, rate)
