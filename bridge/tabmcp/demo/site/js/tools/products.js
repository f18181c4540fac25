// @ts-check
import { db, byId, nextId, removeById, log, changed, PRODUCT_CATEGORIES } from '../store.js';
import { ui, toast, fmtMoney } from '../ui.js';
import { navigate } from '../router.js';
import { tool, obj, S, READ, WRITE, IDEMPOTENT, DESTRUCTIVE, requireAdmin } from './kit.js';

/** @param {import('../store.js').Product} p */
export const productSummary = (p) => ({ id: p.id, sku: p.sku, name: p.name, category: p.category, price: p.price, stock: p.stock,
  visible: p.visible, archived: p.archived });

export const LOW_STOCK = 5;

/** @param {{query?:string,category?:string,stock?:string}} f */
export function filterProducts(f) {
  const q = (f.query ?? '').toLowerCase();
  return db.products.filter((p) => (!f.category || p.category === f.category) &&
    (!f.stock || (f.stock === 'out' ? p.stock === 0 : f.stock === 'low' ? p.stock > 0 && p.stock <= LOW_STOCK : p.stock > LOW_STOCK)) &&
    (!q || p.name.toLowerCase().includes(q) || p.sku.toLowerCase().includes(q)));
}

const SKU = '^ACM-[0-9]{4}$';
const price = S.num('Price in USD.', { minimum: 0.5, maximum: 10000 });

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'products',
  title: 'Products & inventory',
  description: 'The shop catalogue and stock levels: list, look up, add, edit and archive products, adjust stock, hide products and find low stock.',
  tools: [
    tool({
      name: 'list_products',
      title: 'List products',
      description: 'List catalogue products with price and stock, optionally by category, stock level ("in", "low" ≤ 5, "out") or a name/SKU query.',
      input: obj({ category: S.enum(PRODUCT_CATEGORIES, 'Only this category.'), stock: S.enum(['in', 'low', 'out'], 'Only products with this stock level.'), query: S.query('product name and SKU'), include_archived: S.bool('Include archived products (default false).') }),
      annotations: READ,
      run: ({ category, stock, query, include_archived = false }) => {
        const rows = filterProducts({ category, stock, query }).filter((p) => include_archived || !p.archived);
        return { total: rows.length, products: rows.map(productSummary) };
      },
    }),
    tool({
      name: 'get_product',
      title: 'Get product details',
      description: 'One product by id or SKU, with its description and how many units sold in the seeded order history.',
      input: { ...obj({ id: S.id('product'), sku: S.str('Stock keeping unit, e.g. ACM-1004.', { pattern: SKU }) }), minProperties: 1 },
      annotations: READ,
      run: ({ id, sku }) => {
        const p = id ? byId(db.products, id, 'product') : db.products.find((x) => x.sku === sku);
        if (!p) throw new Error(`No product with SKU ${sku}`);
        const sold = db.orders.filter((o) => !['cancelled', 'refunded'].includes(o.status)).flatMap((o) => o.items).filter((it) => it.product_id === p.id).reduce((n, it) => n + it.quantity, 0);
        return { ...productSummary(p), description: p.description, units_sold: sold };
      },
    }),
    tool({
      name: 'create_product',
      title: 'Add a product',
      description: 'Add a product to the catalogue. The SKU is generated. New products are visible in the shop right away unless visible is false.',
      input: obj({
        name: S.str('Product name.', { minLength: 2, maxLength: 80 }),
        category: S.enum(PRODUCT_CATEGORIES, 'Catalogue category.'),
        price,
        stock: S.int('Units in stock (default 0).', { minimum: 0, maximum: 100000 }),
        description: S.str('Short description for the product page.', { maxLength: 1000 }),
        visible: S.bool('Show in the shop (default true).'),
      }, ['name', 'category', 'price']),
      annotations: WRITE,
      run: ({ name, category, price, stock = 0, description = '', visible = true }) => {
        if (db.products.some((p) => p.name.toLowerCase() === name.toLowerCase())) throw new Error(`A product named "${name}" already exists`);
        const id = nextId(db.products);
        const p = { id, sku: `ACM-${1000 + id}`, name, category, price, stock, visible, archived: false, description: description || `${name} from the Acme ${category.toLowerCase()} line.` };
        db.products.push(p);
        log(`added product ${name} (${p.sku})`);
        toast(`${name} added at ${fmtMoney(price)}.`, { title: 'Product created' });
        return { created: productSummary(p) };
      },
    }),
    tool({
      name: 'update_product',
      title: 'Edit a product',
      description: 'Change a product’s name, price, category or description. Give only the fields to change.',
      input: { ...obj({ id: S.id('product'), name: S.str('New name.', { minLength: 2, maxLength: 80 }), price, category: S.enum(PRODUCT_CATEGORIES, 'New category.'), description: S.str('New description.', { maxLength: 1000 }) }, ['id']), minProperties: 2 },
      annotations: IDEMPOTENT,
      run: ({ id, ...changes }) => {
        const p = byId(db.products, id, 'product');
        Object.assign(p, changes);
        log(`edited product ${p.name}`);
        toast(`Saved ${p.name}.`);
        return { updated: productSummary(p) };
      },
    }),
    tool({
      name: 'adjust_stock',
      title: 'Adjust stock',
      description: 'Add (positive) or remove (negative) units of a product, e.g. after a delivery or a stock count. Stock cannot go below zero.',
      input: obj({ id: S.id('product'), delta: S.int('Units to add (positive) or remove (negative); not zero.', { minimum: -10000, maximum: 10000 }), reason: S.enum(['delivery', 'stock_count', 'damaged', 'returned', 'other'], 'Why the stock changes (default "other").') }, ['id', 'delta']),
      annotations: WRITE,
      run: ({ id, delta, reason = 'other' }) => {
        const p = byId(db.products, id, 'product');
        if (delta === 0) throw new Error('delta must not be zero');
        if (p.stock + delta < 0) throw new Error(`Only ${p.stock} × ${p.name} in stock; cannot remove ${-delta}`);
        p.stock += delta;
        log(`${delta > 0 ? 'added' : 'removed'} ${Math.abs(delta)} × ${p.name} (${reason.replace('_', ' ')})`);
        toast(`${p.name}: stock is now ${p.stock}.`, { kind: p.stock <= LOW_STOCK ? 'warning' : 'success' });
        return { updated: productSummary(p) };
      },
    }),
    tool({
      name: 'set_product_visibility',
      title: 'Show or hide a product',
      description: 'Show a product in the shop or hide it from customers without deleting it.',
      input: obj({ id: S.id('product'), visible: S.bool('true to show in the shop, false to hide it.') }, ['id', 'visible']),
      annotations: IDEMPOTENT,
      run: ({ id, visible }) => {
        const p = byId(db.products, id, 'product');
        p.visible = visible;
        changed();
        log(`${visible ? 'showed' : 'hid'} ${p.name} in the shop`);
        toast(`${p.name} is now ${visible ? 'visible' : 'hidden'} in the shop.`, { kind: 'info' });
        return { updated: productSummary(p) };
      },
    }),
    tool({
      name: 'list_low_stock_products',
      title: 'Find low stock',
      description: 'Products at or below a stock threshold (default 5), lowest first, to plan re-orders.',
      input: obj({ threshold: S.int('Stock level at or below which a product counts as low (default 5).', { minimum: 0, maximum: 1000, default: LOW_STOCK }) }),
      annotations: READ,
      run: ({ threshold }) => {
        const rows = db.products.filter((p) => !p.archived && p.stock <= threshold).sort((a, b) => a.stock - b.stock);
        return { threshold, total: rows.length, products: rows.map(productSummary) };
      },
    }),
    tool({
      name: 'archive_product',
      title: 'Archive a product',
      description: 'Retire a product: it is hidden from the shop and cannot be ordered, but past orders keep it. Reversible with restore=true.',
      input: obj({ id: S.id('product'), restore: S.bool('true to un-archive instead (default false).') }, ['id']),
      annotations: IDEMPOTENT,
      scope: { dangerLevel: 'moderate' },
      run: ({ id, restore = false }) => {
        const p = byId(db.products, id, 'product');
        p.archived = !restore;
        p.visible = restore;
        log(`${restore ? 'restored' : 'archived'} ${p.name}`);
        toast(`${p.name} ${restore ? 'restored' : 'archived'}.`, { kind: 'info' });
        return { updated: productSummary(p) };
      },
    }),
    tool({
      name: 'delete_product',
      title: 'Delete a product',
      description: 'Permanently remove a product from the catalogue (past orders keep their line items). Refused while unshipped orders contain it. Cannot be undone; archive_product is the reversible option. Admin only: needs admin mode.',
      input: obj({ id: S.id('product') }, ['id']),
      annotations: DESTRUCTIVE,
      scope: { states: ['admin-mode'], dangerLevel: 'destructive' },
      run: ({ id }) => {
        requireAdmin(ui);
        const p = byId(db.products, id, 'product');
        const open = db.orders.filter((o) => ['pending', 'paid'].includes(o.status) && o.items.some((it) => it.product_id === id)).map((o) => o.id);
        if (open.length) throw new Error(`${p.name} is in ${open.length} unshipped order(s) (e.g. #${open[0]}); ship or cancel them first, or archive the product`);
        removeById(db.products, id, 'product');
        if (ui.route === 'products' && ui.param === String(id)) navigate('products');
        log(`deleted product ${p.name}`);
        toast(`${p.name} was deleted.`, { kind: 'warning', title: 'Product deleted' });
        return { deleted: productSummary(p) };
      },
    }),
  ],
};
