// @ts-check
import { db, ORDER_STATUSES, PRODUCT_CATEGORIES, CAMPAIGN_STATUSES } from '../store.js';
import { ui, esc, badge, fmtDate, fmtDateTime, fmtMoney, fmtMoneyShort, fmtNum, emptyRow } from '../ui.js';
import { filterOrders } from '../tools/orders.js';
import { filterProducts, LOW_STOCK } from '../tools/products.js';
import { campaignStats } from '../tools/marketing.js';
import { pageHeader, toolButton, formButton, searchInput, filterSelect, countLine, table, card, closeLink, dl } from './common.js';

/** @param {import('../store.js').Order} o */
function orderDetail(o) {
  const lines = o.items.map((it) => `<tr><td>${esc(it.name)}</td><td class="num">${it.quantity}</td><td class="num">${esc(fmtMoney(it.unit_price))}</td><td class="num">${esc(fmtMoney(it.quantity * it.unit_price))}</td></tr>`).join('');
  const actions = [
    o.status === 'pending' ? toolButton('Mark paid', 'update_order_status', { id: o.id, status: 'paid' }, { cls: 'btn-sm btn-primary' }) : '',
    o.status === 'paid' ? formButton('Ship…', 'ship_order', { id: o.id }, 'btn-sm btn-primary') : '',
    o.status === 'shipped' ? toolButton('Mark delivered', 'update_order_status', { id: o.id, status: 'delivered' }, { cls: 'btn-sm btn-primary' }) : '',
    formButton('Add note', 'add_order_note', { id: o.id }, 'btn-sm'),
    ['pending', 'paid'].includes(o.status) ? toolButton('Cancel order', 'cancel_order', { id: o.id }, { cls: 'btn-sm btn-danger-ghost', confirm: `Cancel order #${o.id}? Paid orders are refunded in full.` }) : '',
    ['paid', 'shipped', 'delivered'].includes(o.status) && o.refunded_amount < o.total ? formButton('Refund…', 'refund_order', { id: o.id }, 'btn-sm btn-danger-ghost') : '',
  ].join('');
  return `<aside class="card detail" data-testid="detail-panel" data-id="${o.id}" aria-label="Order #${o.id}">
    <div class="card-head"><h2>Order #${o.id}</h2>${closeLink('orders')}</div>
    ${dl([['Customer', `${esc(o.customer_name)}<br><span class="muted small">${esc(o.customer_email)}</span>`], ['Status', `<span data-testid="order-status">${badge(o.status)}</span>`], ['Placed', esc(fmtDateTime(o.created_at))],
      ['Shipping', o.carrier ? `${esc(o.carrier)} · <code>${esc(o.tracking_number)}</code>` : '—'], ...(o.refunded_amount ? /** @type {[string,string][]} */ ([['Refunded', esc(fmtMoney(o.refunded_amount))]]) : [])])}
    <table class="lines"><thead><tr><th>Item</th><th class="num">Qty</th><th class="num">Price</th><th class="num">Total</th></tr></thead><tbody>${lines}</tbody>
      <tfoot><tr><th colspan="3">Total</th><th class="num">${esc(fmtMoney(o.total))}</th></tr></tfoot></table>
    ${o.notes.length ? `<h3>Notes</h3><ul class="notes" data-testid="order-notes">${o.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
    <div class="btn-row">${actions}</div>
  </aside>`;
}

export function renderOrders() {
  const f = ui.filters.orders;
  const rows = filterOrders(f).sort((a, b) => b.id - a.id);
  const selected = ui.param ? db.orders.find((o) => String(o.id) === ui.param) : null;
  const body = rows.map((o) => `
    <tr data-testid="order-row" data-id="${o.id}" data-status="${esc(o.status)}"${selected?.id === o.id ? ' class="selected" aria-current="true"' : ''}>
      <td><a href="#/orders/${o.id}" class="strong">#${o.id}</a></td>
      <td>${esc(o.customer_name)}<div class="muted small">${esc(o.customer_email)}</div></td>
      <td class="num">${o.items.reduce((n, it) => n + it.quantity, 0)}</td>
      <td class="num">${esc(fmtMoney(o.total))}</td>
      <td>${badge(o.status)}</td>
      <td class="muted date hide-narrow">${esc(fmtDate(o.created_at))}</td>
    </tr>`).join('');
  const revenue = rows.reduce((s, o) => s + o.total, 0);
  return `
    ${pageHeader('Orders', `${rows.length} orders · ${fmtMoney(revenue)}`)}
    <div class="toolbar">
      ${searchInput('orders.query', f.query, 'Search customer or order number')}
      ${filterSelect('orders.status', ORDER_STATUSES, f.status, 'Status', 'All statuses')}
    </div>
    <div class="${selected ? 'with-detail' : ''}">
      <div>${table('<th>Order</th><th>Customer</th><th class="num">Items</th><th class="num">Total</th><th>Status</th><th class="hide-narrow">Date</th>', body || emptyRow(6, 'No orders match these filters.'), 'orders-table')}
      ${countLine(rows.length, db.orders.length, 'orders')}</div>
      ${selected ? orderDetail(selected) : ''}
    </div>`;
}

/** @param {import('../store.js').Product} p */
function stockBadge(p) {
  if (p.stock === 0) return '<span class="badge badge-out">out of stock</span>';
  if (p.stock <= LOW_STOCK) return `<span class="badge badge-low">${p.stock} left</span>`;
  return `<span class="stock">${fmtNum(p.stock)}</span>`;
}

export function renderProducts() {
  const f = ui.filters.products;
  const rows = filterProducts(f);
  const selected = ui.param ? db.products.find((p) => String(p.id) === ui.param) : null;
  const body = rows.map((p) => `
    <tr data-testid="product-row" data-id="${p.id}"${p.archived ? ' class="archived"' : selected?.id === p.id ? ' class="selected"' : ''}>
      <td><a href="#/products/${p.id}" class="strong">${esc(p.name)}</a><div class="muted small"><code>${esc(p.sku)}</code></div></td>
      <td class="hide-narrow">${esc(p.category)}</td>
      <td class="num">${esc(fmtMoney(p.price))}</td>
      <td class="num" data-testid="product-stock">${stockBadge(p)}</td>
      <td>${p.archived ? badge('archived') : p.visible ? badge('visible') : badge('hidden')}</td>
      <td class="actions">
        ${toolButton('+10', 'adjust_stock', { id: p.id, delta: 10, reason: 'delivery' }, { title: `Receive 10 × ${p.name}` })}
        ${p.archived ? toolButton('Restore', 'archive_product', { id: p.id, restore: true }) : toolButton(p.visible ? 'Hide' : 'Show', 'set_product_visibility', { id: p.id, visible: !p.visible })}
        ${p.archived ? '' : toolButton('Archive', 'archive_product', { id: p.id })}
      </td>
    </tr>`).join('');
  const detail = selected ? `<aside class="card detail" data-testid="detail-panel" data-id="${selected.id}" aria-label="Product details">
      <div class="card-head"><h2>${esc(selected.name)}</h2>${closeLink('products')}</div>
      <p>${esc(selected.description)}</p>
      ${dl([['SKU', `<code>${esc(selected.sku)}</code>`], ['Category', esc(selected.category)], ['Price', esc(fmtMoney(selected.price))], ['Stock', stockBadge(selected)]])}
      <div class="btn-row">${formButton('Edit', 'update_product', { id: selected.id }, 'btn-sm')}${formButton('Adjust stock', 'adjust_stock', { id: selected.id }, 'btn-sm')}
      ${toolButton('Delete', 'delete_product', { id: selected.id }, { cls: 'btn-sm btn-danger-ghost', disabled: !ui.adminMode, title: ui.adminMode ? undefined : 'Switch on Admin mode to do this', confirm: `Delete ${selected.name}? This cannot be undone.` })}</div>
    </aside>` : '';
  return `
    ${pageHeader('Products', 'Catalogue and inventory.', formButton('Add product', 'create_product'))}
    <div class="toolbar">
      ${searchInput('products.query', f.query, 'Search name or SKU')}
      ${filterSelect('products.category', PRODUCT_CATEGORIES, f.category, 'Category', 'All categories')}
      ${filterSelect('products.stock', ['in', 'low', 'out'], f.stock, 'Stock', 'Any stock')}
    </div>
    <div class="${selected ? 'with-detail' : ''}">
      <div>${table('<th>Product</th><th class="hide-narrow">Category</th><th class="num">Price</th><th class="num">Stock</th><th>Shop</th><th><span class="sr-only">Actions</span></th>', body || emptyRow(6, 'No products match these filters.'), 'products-table')}
      ${countLine(rows.length, db.products.length, 'products')}</div>
      ${detail}
    </div>`;
}

export function renderMarketing() {
  const status = ui.filters.campaigns.status;
  const rows = db.campaigns.filter((c) => !status || c.status === status);
  const selectedId = ui.param ? Number(ui.param) : null;
  const body = rows.map((c) => {
    const s = campaignStats(c);
    const spentPct = c.budget ? Math.min(100, (c.spent / c.budget) * 100) : 0;
    return `<tr data-testid="campaign-row" data-id="${c.id}" data-status="${esc(c.status)}"${selectedId === c.id ? ' class="selected"' : ''}>
      <td><span class="strong">${esc(c.name)}</span><div class="muted small">${esc(c.audience)} · starts ${esc(fmtDate(c.start_date))}</div></td>
      <td>${esc(c.channel)}</td>
      <td>${badge(c.status)}</td>
      <td><div class="meter" title="${esc(fmtMoney(c.spent))} of ${esc(fmtMoney(c.budget))}"><span style="width:${spentPct.toFixed(0)}%"></span></div><span class="muted small budget">${esc(fmtMoneyShort(c.spent))} of ${esc(fmtMoneyShort(c.budget))}</span></td>
      <td class="num">${s.sent ? `${s.open_rate}%` : '—'}</td>
      <td class="num">${s.sent ? fmtNum(s.conversions) : '—'}</td>
      <td class="actions">${c.status === 'active' ? toolButton('Pause', 'pause_campaign', { id: c.id }) : c.status !== 'completed' ? toolButton('Launch', 'launch_campaign', { id: c.id }, { cls: 'btn-sm btn-primary' }) : ''}
        ${c.status !== 'active' ? toolButton('Delete', 'delete_campaign', { id: c.id }, { cls: 'btn-sm btn-danger-ghost', confirm: `Delete campaign “${c.name}”?` }) : ''}</td>
    </tr>`;
  }).join('');
  const codes = db.discounts.map((d) => `<tr data-testid="discount-row" data-code="${esc(d.code)}"${d.active ? '' : ' class="archived"'}>
      <td><code>${esc(d.code)}</code></td><td class="num">${d.percent_off}%</td><td class="num">${fmtNum(d.uses)}${d.max_uses ? ` / ${fmtNum(d.max_uses)}` : ''}</td>
      <td>${esc(d.expires_at ? fmtDate(d.expires_at) : 'never')}</td><td>${badge(d.active ? 'active' : 'disabled')}</td>
      <td class="actions">${d.active ? toolButton('Disable', 'disable_discount_code', { code: d.code }) : ''}</td></tr>`).join('');
  return `
    ${pageHeader('Marketing', 'Campaigns and discount codes.', `${formButton('New code', 'create_discount_code', {}, '')} ${formButton('New campaign', 'create_campaign')}`)}
    <div class="toolbar">${filterSelect('campaigns.status', CAMPAIGN_STATUSES, status, 'Status', 'All statuses')}</div>
    ${table('<th>Campaign</th><th>Channel</th><th>Status</th><th>Budget</th><th class="num">Open rate</th><th class="num">Conversions</th><th><span class="sr-only">Actions</span></th>', body || emptyRow(7, 'No campaigns match.'), 'campaigns-table')}
    ${countLine(rows.length, db.campaigns.length, 'campaigns')}
    ${card('Discount codes', table('<th>Code</th><th class="num">Off</th><th class="num">Uses</th><th>Expires</th><th>Status</th><th><span class="sr-only">Actions</span></th>', codes, 'discounts-table'))}`;
}
