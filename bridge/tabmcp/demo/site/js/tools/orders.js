// @ts-check
import { db, byId, nextId, log, changed, money, ORDER_STATUSES, CARRIERS } from '../store.js';
import { ui, toast, fmtMoney } from '../ui.js';
import { navigate } from '../router.js';
import { tool, obj, S, READ, WRITE, IDEMPOTENT, DESTRUCTIVE } from './kit.js';

/** @param {import('../store.js').Order} o */
export const orderSummary = (o) => ({ id: o.id, customer_name: o.customer_name, customer_email: o.customer_email, total: o.total,
  status: o.status, items: o.items.reduce((n, it) => n + it.quantity, 0), created_at: o.created_at });

/** @param {{query?:string,status?:string,min_total?:number}} f */
export function filterOrders(f) {
  const q = (f.query ?? '').toLowerCase();
  return db.orders.filter((o) => (!f.status || o.status === f.status) && (f.min_total === undefined || o.total >= f.min_total) &&
    (!q || o.customer_name.toLowerCase().includes(q) || o.customer_email.includes(q) || String(o.id).includes(q)));
}

/** Which status changes are allowed (the rest need cancel_order / refund_order). */
const NEXT = /** @type {Record<string,string[]>} */ ({ pending: ['paid'], paid: ['shipped'], shipped: ['delivered'], delivered: [], cancelled: [], refunded: [] });

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'orders',
  title: 'Orders',
  description: 'Customer orders of the Acme shop: list and inspect orders, create phone orders, move them through fulfilment, ship, cancel, refund, add notes and export CSV.',
  tools: [
    tool({
      name: 'list_orders',
      title: 'List orders',
      description: 'List orders, newest first, optionally filtered by status, minimum total (USD) or a customer name/email/order-number query.',
      input: obj({ status: S.enum(ORDER_STATUSES, 'Only orders with this status.'), min_total: S.num('Only orders of at least this total, in USD.', { minimum: 0 }), query: S.query('customer name, email and order number'), limit: S.limit(20) }),
      annotations: READ,
      scope: { core: true },
      run: ({ status, min_total, query, limit }) => {
        const rows = filterOrders({ status, min_total, query }).sort((a, b) => b.id - a.id);
        return { total: rows.length, revenue: money(rows.reduce((s, o) => s + o.total, 0)), orders: rows.slice(0, limit).map(orderSummary) };
      },
    }),
    tool({
      name: 'get_order',
      title: 'Get order details',
      description: 'Everything about one order: line items, totals, status, shipping carrier and tracking number, refunds and internal notes. Opens the order on screen.',
      input: obj({ id: S.int('Order number, e.g. 1027.', { minimum: 1 }) }, ['id']),
      annotations: READ,
      run: ({ id }) => {
        const o = byId(db.orders, id, 'order');
        navigate('orders', id);
        return structuredClone(o);
      },
    }),
    tool({
      name: 'create_order',
      title: 'Create an order',
      description: 'Enter an order on behalf of a customer (e.g. a phone order). Prices come from the catalogue; stock is reserved right away.',
      input: obj({
        customer_name: S.str('Customer full name.', { minLength: 1, maxLength: 80 }),
        customer_email: S.email('Customer email for the receipt.'),
        items: S.arr(obj({ product_id: S.id('product'), quantity: S.int('How many.', { minimum: 1, maximum: 99 }) }, ['product_id', 'quantity']),
          'Line items.', { minItems: 1, maxItems: 20 }),
      }, ['customer_name', 'customer_email', 'items']),
      annotations: WRITE,
      run: ({ customer_name, customer_email, items }) => {
        const lines = items.map((/** @type {{product_id:number, quantity:number}} */ it) => {
          const p = byId(db.products, it.product_id, 'product');
          if (p.archived) throw new Error(`${p.name} (product ${p.id}) is archived and cannot be ordered`);
          if (p.stock < it.quantity) throw new Error(`Only ${p.stock} × ${p.name} in stock, ${it.quantity} requested`);
          return { product_id: p.id, name: p.name, quantity: it.quantity, unit_price: p.price };
        });
        for (const l of lines) byId(db.products, l.product_id, 'product').stock -= l.quantity;
        const order = { id: nextId(db.orders), customer_name, customer_email: customer_email.toLowerCase(), items: lines,
          total: money(lines.reduce((/** @type {number} */ s, /** @type {{quantity:number,unit_price:number}} */ l) => s + l.quantity * l.unit_price, 0)),
          status: 'pending', created_at: new Date().toISOString(), notes: [], carrier: null, tracking_number: null, refunded_amount: 0 };
        db.orders.push(order);
        log(`created order #${order.id} for ${customer_name} (${fmtMoney(order.total)})`);
        toast(`Order #${order.id} for ${fmtMoney(order.total)} created.`, { title: 'Order created' });
        return { created: orderSummary(order) };
      },
    }),
    tool({
      name: 'update_order_status',
      title: 'Advance an order',
      description: 'Move an order one step through fulfilment: pending → paid → shipped → delivered. Use ship_order to add tracking, cancel_order or refund_order for the rest.',
      input: obj({ id: S.int('Order number.', { minimum: 1 }), status: S.enum(['paid', 'shipped', 'delivered'], 'The new status.') }, ['id', 'status']),
      annotations: IDEMPOTENT,
      run: ({ id, status }) => {
        const o = byId(db.orders, id, 'order');
        if (o.status === status) return { updated: orderSummary(o), note: `Order was already ${status}` };
        if (!NEXT[o.status].includes(status)) throw new Error(`Order #${id} is ${o.status}; it can only become ${NEXT[o.status].join(' or ') || 'nothing else'}`);
        o.status = status;
        log(`marked order #${id} as ${status}`);
        toast(`Order #${id} is now ${status}.`);
        return { updated: orderSummary(o) };
      },
    }),
    tool({
      name: 'ship_order',
      title: 'Ship an order',
      description: 'Mark a paid order as shipped with a carrier and tracking number; the customer gets a shipping email.',
      input: obj({ id: S.int('Order number.', { minimum: 1 }), carrier: S.enum(CARRIERS, 'Shipping carrier.'), tracking_number: S.str('Carrier tracking number (generated if omitted).', { pattern: '^[A-Za-z0-9-]{6,40}$' }) }, ['id', 'carrier']),
      annotations: WRITE,
      run: ({ id, carrier, tracking_number }) => {
        const o = byId(db.orders, id, 'order');
        if (o.status !== 'paid') throw new Error(`Order #${id} is ${o.status}; only paid orders can be shipped`);
        o.status = 'shipped';
        o.carrier = carrier;
        o.tracking_number = tracking_number ?? `1Z${String(id).padStart(6, '0')}${Date.now() % 10000}`;
        log(`shipped order #${id} with ${carrier}`);
        toast(`Order #${id} shipped with ${carrier} (${o.tracking_number}).`, { title: 'Shipped' });
        return { updated: orderSummary(o), carrier, tracking_number: o.tracking_number };
      },
    }),
    tool({
      name: 'add_order_note',
      title: 'Add an internal note',
      description: 'Attach an internal note to an order (not visible to the customer).',
      input: obj({ id: S.int('Order number.', { minimum: 1 }), note: S.str('The note.', { minLength: 1, maxLength: 1000 }) }, ['id', 'note']),
      annotations: WRITE,
      run: ({ id, note }) => {
        const o = byId(db.orders, id, 'order');
        o.notes.push(note);
        changed();
        log(`added a note to order #${id}`);
        toast(`Note added to order #${id}.`, { kind: 'info' });
        return { id, notes: o.notes };
      },
    }),
    tool({
      name: 'cancel_order',
      title: 'Cancel an order',
      description: 'Cancel an order that has not shipped yet and put its items back in stock. Paid orders are refunded in full automatically.',
      input: obj({ id: S.int('Order number.', { minimum: 1 }), reason: S.str('Reason, shown to the customer.', { maxLength: 300 }) }, ['id']),
      annotations: DESTRUCTIVE,
      scope: { dangerLevel: 'moderate' },
      run: ({ id, reason }) => {
        const o = byId(db.orders, id, 'order');
        if (!['pending', 'paid'].includes(o.status)) throw new Error(`Order #${id} is ${o.status} and can no longer be cancelled${o.status === 'shipped' || o.status === 'delivered' ? '; use refund_order' : ''}`);
        if (o.status === 'paid') o.refunded_amount = o.total;
        o.status = 'cancelled';
        for (const it of o.items) { const p = db.products.find((x) => x.id === it.product_id); if (p) p.stock += it.quantity; }
        if (reason) o.notes.push(`Cancelled: ${reason}`);
        log(`cancelled order #${id}`);
        toast(`Order #${id} cancelled.`, { kind: 'warning' });
        return { updated: orderSummary(o), refunded: o.refunded_amount };
      },
    }),
    tool({
      name: 'refund_order',
      title: 'Refund an order',
      description: 'Send money back to the customer, in full or in part. Refunds are final. Needs the user’s approval.',
      input: obj({ id: S.int('Order number.', { minimum: 1 }), amount: S.num('Amount in USD; omit for the full remaining amount.', { exclusiveMinimum: 0 }), reason: S.str('Why, kept on the order.', { minLength: 1, maxLength: 300 }) }, ['id', 'reason']),
      annotations: DESTRUCTIVE,
      scope: { dangerLevel: 'destructive', requiresApproval: true },
      run: ({ id, amount, reason }) => {
        const o = byId(db.orders, id, 'order');
        if (['pending', 'cancelled', 'refunded'].includes(o.status)) throw new Error(`Order #${id} is ${o.status}; nothing to refund`);
        const left = money(o.total - o.refunded_amount);
        const refund = money(amount ?? left);
        if (refund > left) throw new Error(`Refund ${fmtMoney(refund)} is more than the ${fmtMoney(left)} left on order #${id}`);
        o.refunded_amount = money(o.refunded_amount + refund);
        if (o.refunded_amount >= o.total) o.status = 'refunded';
        o.notes.push(`Refunded ${fmtMoney(refund)}: ${reason}`);
        log(`refunded ${fmtMoney(refund)} on order #${id}`);
        toast(`${fmtMoney(refund)} refunded on order #${id}.`, { kind: 'warning', title: 'Refund issued' });
        return { updated: orderSummary(o), refunded: refund, refunded_total: o.refunded_amount };
      },
    }),
    tool({
      name: 'export_orders_csv',
      title: 'Export orders as CSV',
      description: 'Orders as CSV text (id, date, customer, email, status, total), optionally only one status.',
      input: obj({ status: S.enum(ORDER_STATUSES, 'Only orders with this status.') }),
      annotations: READ,
      run: ({ status }) => {
        const rows = filterOrders({ status }).sort((a, b) => a.id - b.id);
        const q = (/** @type {string} */ s) => `"${s.replace(/"/g, '""')}"`;
        const csv = ['id,created_at,customer_name,customer_email,status,total',
          ...rows.map((o) => [o.id, o.created_at, q(o.customer_name), o.customer_email, o.status, o.total.toFixed(2)].join(','))].join('\n');
        toast(`Exported ${rows.length} orders.`, { kind: 'info' });
        return csv;
      },
    }),
    tool({
      name: 'filter_orders_table',
      title: 'Filter the Orders table',
      description: 'Show the Orders page with these filters applied, so the person at the screen sees the result. Omitted filters are cleared.',
      input: obj({ status: S.enum(ORDER_STATUSES, 'Show only this status.'), query: S.query('customer name, email and order number') }),
      annotations: IDEMPOTENT,
      scope: { routes: ['#/orders*'] },
      run: ({ status = '', query = '' }) => {
        ui.filters.orders = { status, query };
        if (ui.route !== 'orders' || ui.param) navigate('orders');
        changed();
        return { visible_rows: filterOrders(ui.filters.orders).length, filters: ui.filters.orders };
      },
    }),
  ],
};
