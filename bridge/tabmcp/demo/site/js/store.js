// @ts-check
/**
 * The in-memory data store of Acme Back Office.
 *
 * Everything is seeded from a fixed pseudo-random sequence and a fixed "demo clock", so every
 * page load starts with exactly the same data (25 users, 30 posts, 40 orders, ...). Records
 * created later get real timestamps. Nothing is persisted: a reload restores the seed.
 */

/** The moment the seed data was "taken": analytics ranges end here. */
export const SEED_NOW = Date.UTC(2026, 0, 12, 9, 0, 0);
const DAY = 86_400_000;

/** mulberry32: a tiny deterministic PRNG. @param {number} seed */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = rng(20260112);
/** @template T @param {T[]} list @returns {T} */
const pick = (list) => list[Math.floor(rand() * list.length)];
/** @param {number} lo @param {number} hi */
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
/** @param {number} daysAgo */
const iso = (daysAgo) => new Date(SEED_NOW - daysAgo * DAY).toISOString();
const round2 = (/** @type {number} */ n) => Math.round(n * 100) / 100;

export const ROLES = ['admin', 'editor', 'author', 'support', 'viewer'];
export const USER_STATUSES = ['active', 'suspended', 'invited'];
export const DEPARTMENTS = ['Engineering', 'Marketing', 'Sales', 'Support', 'Editorial', 'Finance'];
export const POST_STATUSES = ['draft', 'scheduled', 'published', 'archived'];
export const MEDIA_TYPES = ['image', 'video', 'document'];
export const MEDIA_FOLDERS = ['Brand', 'Blog', 'Products', 'Campaigns', 'Uploads'];
export const COMMENT_STATUSES = ['pending', 'approved', 'rejected', 'spam'];
export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded'];
export const CARRIERS = ['UPS', 'FedEx', 'DHL', 'USPS'];
export const PRODUCT_CATEGORIES = ['Apparel', 'Accessories', 'Home', 'Electronics', 'Stationery'];
export const TICKET_STATUSES = ['open', 'pending', 'solved', 'closed'];
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
export const CAMPAIGN_CHANNELS = ['email', 'social', 'ads', 'sms'];
export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'active', 'paused', 'completed'];
export const TAGS = ['product', 'engineering', 'guides', 'company', 'release-notes', 'design', 'customers', 'events'];
export const TIMEZONES = ['UTC', 'Europe/Berlin', 'Europe/London', 'America/New_York', 'America/Los_Angeles', 'Asia/Tokyo', 'Australia/Sydney'];
export const LANGUAGES = ['en', 'de', 'fr', 'es', 'ja'];
export const API_SCOPES = ['read:users', 'write:users', 'read:orders', 'write:orders', 'read:content', 'write:content', 'read:analytics'];

const FIRST = ['Ada', 'Bruno', 'Chloe', 'Dmitri', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kira', 'Liam', 'Maya',
  'Noah', 'Olivia', 'Priya', 'Quinn', 'Rafael', 'Sofia', 'Tomas', 'Uma', 'Victor', 'Wen', 'Yara', 'Zane'];
const LAST = ['Lovelace', 'Moreau', 'Nguyen', 'Petrov', 'Garcia', 'Haddad', 'Kim', 'Tanaka', 'Silva', 'Becker', 'Okafor',
  'Walsh', 'Patel', 'Larsen', 'Rossi', 'Iyer', 'Fischer', 'Costa', 'Novak', 'Herrera', 'Mensah', 'Dubois', 'Zhang', 'Cohen', 'Brooks'];

/** @typedef {{id:number,name:string,email:string,role:string,status:string,department:string,created_at:string,last_login:string|null}} User */
/** @typedef {{id:number,title:string,slug:string,body:string,status:string,author_id:number,tags:string[],views:number,created_at:string,publish_at:string|null}} Post */
/** @typedef {{id:number,filename:string,type:string,folder:string,size_kb:number,width:number|null,height:number|null,alt_text:string,hue:number,uploaded_at:string}} Media */
/** @typedef {{id:number,post_id:number,author_name:string,author_email:string,body:string,status:string,created_at:string,replies:{body:string,at:string}[]}} Comment */
/** @typedef {{product_id:number,name:string,quantity:number,unit_price:number}} OrderItem */
/** @typedef {{id:number,customer_name:string,customer_email:string,items:OrderItem[],total:number,status:string,created_at:string,notes:string[],carrier:string|null,tracking_number:string|null,refunded_amount:number}} Order */
/** @typedef {{id:number,sku:string,name:string,category:string,price:number,stock:number,visible:boolean,archived:boolean,description:string}} Product */
/** @typedef {{id:number,subject:string,customer_email:string,priority:string,status:string,assignee_id:number|null,created_at:string,messages:{from:string,body:string,at:string,internal:boolean}[]}} Ticket */
/** @typedef {{id:number,name:string,channel:string,status:string,budget:number,spent:number,audience:string,start_date:string,end_date:string|null,stats:{sent:number,opens:number,clicks:number,conversions:number}}} Campaign */

function seedUsers() {
  /** @type {User[]} */
  const users = [];
  const roles = ['admin', 'admin', 'editor', 'editor', 'editor', 'author', 'author', 'author', 'author', 'author',
    'support', 'support', 'support', 'support', 'viewer', 'viewer', 'viewer', 'viewer', 'viewer', 'viewer',
    'author', 'editor', 'viewer', 'support', 'viewer'];
  for (let i = 0; i < 25; i++) {
    const first = FIRST[i];
    const last = LAST[(i * 7) % LAST.length];
    const status = i === 6 || i === 17 ? 'suspended' : i === 21 || i === 23 || i === 24 ? 'invited' : 'active';
    const created = int(40, 700);
    users.push({
      id: i + 1,
      name: `${first} ${last}`,
      email: `${first}.${last}@acme.test`.toLowerCase(),
      role: roles[i],
      status,
      department: roles[i] === 'support' ? 'Support' : roles[i] === 'editor' || roles[i] === 'author' ? pick(['Editorial', 'Marketing']) : pick(DEPARTMENTS),
      created_at: iso(created),
      last_login: status === 'invited' ? null : iso(int(0, 30)),
    });
  }
  return users;
}

const TITLE_A = ['10 Tips for', 'A Practical Guide to', 'Why We Rebuilt', 'Lessons Learned from', 'Introducing', 'How to Measure',
  'The Future of', 'Behind the Scenes of', 'Getting Started with', 'What Customers Taught Us About'];
const TITLE_B = ['Faster Checkout', 'Our Design System', 'Inventory Forecasting', 'Customer Support at Scale', 'the Spring Collection',
  'Remote Onboarding', 'Accessible Forms', 'Email Campaigns', 'Warehouse Automation', 'Sustainable Packaging', 'Release 4.2',
  'Dark Mode'];
const SENTENCES = ['We spent the last quarter listening to customers and the results surprised us.',
  'This post walks through the decisions, the trade-offs and what we would do differently.',
  'Numbers matter, but the stories behind them matter more.',
  'Our team shipped the first version in three weeks and iterated every Friday.',
  'Here is what worked, what did not, and the checklist we now use for every launch.',
  'If you only read one section, make it the one about measuring success.'];

/** @param {User[]} users */
function seedPosts(users) {
  const writers = users.filter((u) => ['admin', 'editor', 'author'].includes(u.role));
  /** @type {Post[]} */
  const posts = [];
  const used = new Set();
  for (let i = 0; i < 30; i++) {
    let title;
    do title = `${pick(TITLE_A)} ${pick(TITLE_B)}`; while (used.has(title));
    used.add(title);
    const status = i % 10 === 3 ? 'draft' : i % 10 === 7 ? 'draft' : i === 12 || i === 26 ? 'scheduled' : i === 29 ? 'archived' : 'published';
    const created = int(2, 180);
    posts.push({
      id: i + 1,
      title,
      slug: slugify(title),
      body: [pick(SENTENCES), pick(SENTENCES), pick(SENTENCES)].join(' '),
      status,
      author_id: pick(writers).id,
      tags: [...new Set([pick(TAGS), pick(TAGS)])],
      views: status === 'published' ? int(120, 9800) : 0,
      created_at: iso(created),
      publish_at: status === 'scheduled' ? new Date(SEED_NOW + int(2, 20) * DAY).toISOString() : status === 'published' ? iso(created - 1 > 0 ? created - 1 : 0) : null,
    });
  }
  return posts;
}

const MEDIA_NAMES = ['hero-banner-spring', 'team-offsite-2025', 'logo-primary', 'logo-mono', 'product-tote-bag', 'product-mug-white',
  'checkout-walkthrough', 'brand-guidelines', 'press-kit', 'warehouse-tour', 'founder-portrait', 'office-berlin',
  'newsletter-header', 'holiday-campaign-ad', 'app-screenshot-dashboard', 'app-screenshot-mobile', 'pricing-sheet',
  'onboarding-video', 'icon-set-preview', 'customer-story-lumen', 'trade-show-booth', 'recipe-card-template',
  'size-chart', 'annual-report-2025'];

function seedMedia() {
  /** @type {Media[]} */
  const media = [];
  MEDIA_NAMES.forEach((base, i) => {
    const type = /video|walkthrough|tour/.test(base) ? 'video' : /guidelines|press-kit|pricing|report|size-chart|template/.test(base) ? 'document' : 'image';
    const ext = type === 'video' ? 'mp4' : type === 'document' ? 'pdf' : pick(['jpg', 'png', 'webp']);
    const [w, h] = type === 'image' ? pick([[1920, 1080], [1200, 800], [800, 800], [2400, 1350], [1080, 1350]]) : type === 'video' ? [1920, 1080] : [0, 0];
    media.push({
      id: i + 1,
      filename: `${base}.${ext}`,
      type,
      folder: /product|size/.test(base) ? 'Products' : /logo|brand|icon/.test(base) ? 'Brand' : /campaign|newsletter|holiday|trade/.test(base) ? 'Campaigns' : /team|founder|office|customer|recipe/.test(base) ? 'Blog' : 'Uploads',
      size_kb: type === 'video' ? int(18_000, 240_000) : type === 'document' ? int(300, 9000) : int(90, 2400),
      width: w || null,
      height: h || null,
      alt_text: type === 'image' && i % 4 !== 1 ? base.replace(/-/g, ' ').replace(/^\w/, (c) => c.toUpperCase()) : '',
      hue: (i * 47) % 360,
      uploaded_at: iso(int(1, 300)),
    });
  });
  return media;
}

const COMMENT_BODIES = ['Great write-up, thanks for sharing the numbers!', 'Could you share the template you mentioned?',
  'This did not work for me on Safari, any ideas?', 'We tried the same approach and saw a 12% lift.',
  'BUY CHEAP WATCHES at watches-4-less dot biz!!!', 'Would love a follow-up post on the costs.',
  'The second chart is mislabeled, I think.', 'Bookmarked. Sharing with my team tomorrow.',
  'Click here for free crypto >>> totally-legit.example', 'How long did the migration take end to end?',
  'Thanks! Exactly what I needed this week.', 'Is there a video version of this?'];

/** @param {Post[]} posts */
function seedComments(posts) {
  const published = posts.filter((p) => p.status === 'published');
  /** @type {Comment[]} */
  const comments = [];
  for (let i = 0; i < 36; i++) {
    const body = pick(COMMENT_BODIES);
    const spammy = /CHEAP|crypto/.test(body);
    const first = pick(FIRST);
    const status = spammy ? (i % 2 ? 'spam' : 'pending') : i % 5 === 0 ? 'pending' : i % 11 === 4 ? 'rejected' : i % 3 === 0 ? 'pending' : 'approved';
    comments.push({
      id: i + 1,
      post_id: published[i % published.length].id,
      author_name: spammy ? 'promo' + int(100, 999) : `${first} ${pick(LAST)[0]}.`,
      author_email: spammy ? `deals${int(10, 99)}@spam.example` : `${first.toLowerCase()}${int(1, 99)}@mail.example`,
      body,
      status,
      created_at: iso(int(0, 40) + ((i * 7) % 24) / 24 + ((i * 13) % 60) / 1440),
      replies: [],
    });
  }
  return comments;
}

const PRODUCT_DEFS = [
  ['Canvas Tote Bag', 'Accessories', 24], ['Ceramic Mug, White', 'Home', 16], ['Logo Hoodie', 'Apparel', 58],
  ['Organic Cotton Tee', 'Apparel', 29], ['Wireless Charger', 'Electronics', 39], ['Desk Notebook A5', 'Stationery', 12],
  ['Enamel Pin Set', 'Accessories', 14], ['Insulated Bottle', 'Home', 32], ['Noise-Cancelling Earbuds', 'Electronics', 129],
  ['Wool Beanie', 'Apparel', 27], ['Linen Cushion Cover', 'Home', 35], ['Fineliner Pen Pack', 'Stationery', 9],
  ['USB-C Hub', 'Electronics', 49], ['Leather Card Holder', 'Accessories', 45], ['Rain Jacket', 'Apparel', 119],
  ['Scented Candle', 'Home', 22], ['Sticker Sheet', 'Stationery', 5], ['Laptop Sleeve 14"', 'Accessories', 42],
];

function seedProducts() {
  /** @type {Product[]} */
  return PRODUCT_DEFS.map(([name, category, price], i) => ({
    id: i + 1,
    sku: `ACM-${String(1001 + i)}`,
    name: /** @type {string} */ (name),
    category: /** @type {string} */ (category),
    price: /** @type {number} */ (price),
    stock: i % 6 === 2 ? int(0, 4) : i === 16 ? 0 : int(8, 240),
    visible: i !== 10,
    archived: false,
    description: `${name} from the Acme ${String(category).toLowerCase()} line.`,
  }));
}

/** @param {Product[]} products */
function seedOrders(products) {
  /** @type {Order[]} */
  const orders = [];
  for (let i = 0; i < 40; i++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    const n = int(1, 3);
    /** @type {OrderItem[]} */
    const items = [];
    const chosen = new Set();
    for (let k = 0; k < n; k++) {
      const p = pick(products);
      if (chosen.has(p.id)) continue;
      chosen.add(p.id);
      items.push({ product_id: p.id, name: p.name, quantity: int(1, 3), unit_price: p.price });
    }
    const daysAgo = Math.floor(i * 0.7) + int(0, 1);
    const status = daysAgo <= 1 ? pick(['pending', 'paid']) : daysAgo <= 6 ? pick(['paid', 'shipped', 'shipped']) :
      i % 13 === 5 ? 'cancelled' : i % 17 === 9 ? 'refunded' : 'delivered';
    const total = round2(items.reduce((s, it) => s + it.quantity * it.unit_price, 0));
    const shipped = ['shipped', 'delivered'].includes(status);
    orders.push({
      id: 1040 - i,
      customer_name: `${first} ${last}`,
      customer_email: `${first}.${last}@customer.example`.toLowerCase(),
      items,
      total,
      status,
      created_at: iso(daysAgo + rand() * 0.9),
      notes: [],
      carrier: shipped ? pick(CARRIERS) : null,
      tracking_number: shipped ? `1Z${int(100000, 999999)}${int(1000, 9999)}` : null,
      refunded_amount: status === 'refunded' ? total : 0,
    });
  }
  // Two fresh orders still wait for payment.
  for (const o of orders) if (o.id === 1039 || o.id === 1037) o.status = 'pending';
  return orders.sort((a, b) => a.id - b.id);
}

const TICKET_SUBJECTS = ['Order arrived damaged', 'Cannot reset my password', 'Where is my refund?', 'Wrong size delivered',
  'Invoice needs company VAT number', 'Discount code not working', 'Change shipping address', 'Bulk order for our team',
  'App crashes on checkout', 'Question about the warranty', 'Tracking number shows no updates', 'Cancel my subscription',
  'Product page shows wrong price', 'Request for press samples', 'Account locked after login attempts'];

/** @param {User[]} users */
function seedTickets(users) {
  const agents = users.filter((u) => u.role === 'support' && u.status === 'active');
  /** @type {Ticket[]} */
  return TICKET_SUBJECTS.map((subject, i) => {
    const first = pick(FIRST).toLowerCase();
    const status = i < 6 ? 'open' : i < 9 ? 'pending' : i < 13 ? 'solved' : 'closed';
    const created = iso(int(0, 20) + ((i * 5) % 24) / 24);
    return {
      id: 501 + i,
      subject,
      customer_email: `${first}.${pick(LAST).toLowerCase()}@customer.example`,
      priority: i === 0 || i === 8 ? 'urgent' : i % 4 === 1 ? 'high' : i % 4 === 3 ? 'low' : 'normal',
      status,
      assignee_id: i % 5 === 2 ? null : pick(agents).id,
      created_at: created,
      messages: [{ from: 'customer', body: `Hi, ${subject.toLowerCase()}. Can you help?`, at: created, internal: false }],
    };
  });
}

function seedCampaigns() {
  const defs = [['Spring Collection Launch', 'email', 'active'], ['Holiday Gift Guide', 'email', 'completed'],
    ['Retargeting: Abandoned Carts', 'ads', 'active'], ['Instagram Creator Series', 'social', 'paused'],
    ['Back to School', 'email', 'scheduled'], ['Flash Sale SMS Blast', 'sms', 'draft'],
    ['Webinar: Scaling Support', 'social', 'completed'], ['Loyalty Program Teaser', 'email', 'draft']];
  /** @type {Campaign[]} */
  return defs.map(([name, channel, status], i) => {
    const budget = int(5, 60) * 100;
    const started = ['active', 'paused', 'completed'].includes(status);
    const sent = started ? int(4000, 40000) : 0;
    const opens = Math.floor(sent * (0.2 + rand() * 0.25));
    const clicks = Math.floor(opens * (0.08 + rand() * 0.12));
    return {
      id: i + 1,
      name, channel, status, budget,
      spent: started ? round2(budget * (status === 'completed' ? 0.97 : 0.2 + rand() * 0.5)) : 0,
      audience: pick(['All customers', 'Newsletter subscribers', 'VIP customers', 'Lapsed customers', 'New sign-ups']),
      start_date: new Date(SEED_NOW + (status === 'scheduled' ? int(5, 30) : status === 'draft' ? int(20, 60) : -int(5, 80)) * DAY).toISOString().slice(0, 10),
      end_date: status === 'completed' ? iso(int(1, 4)).slice(0, 10) : null,
      stats: { sent, opens, clicks, conversions: Math.floor(clicks * (0.05 + rand() * 0.1)) },
    };
  });
}

function seedSeries() {
  /** @type {{date:string,visits:number,signups:number,revenue:number,orders:number}[]} */
  const days = [];
  for (let d = 89; d >= 0; d--) {
    const date = new Date(SEED_NOW - d * DAY);
    const weekend = date.getUTCDay() === 0 || date.getUTCDay() === 6;
    const trend = 1 + (89 - d) / 180;
    const visits = Math.round((weekend ? 2100 : 3400) * trend * (0.85 + rand() * 0.3));
    const orders = Math.round(visits * (0.018 + rand() * 0.008));
    days.push({ date: date.toISOString().slice(0, 10), visits, signups: Math.round(visits * (0.004 + rand() * 0.004)), orders, revenue: round2(orders * (38 + rand() * 30)) });
  }
  return days;
}

/** @param {string} s */
export function slugify(s) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80);
}

function seed() {
  const users = seedUsers();
  const posts = seedPosts(users);
  const products = seedProducts();
  const lastPost = posts.filter((p) => p.status === 'published').sort((a, b) => String(b.publish_at).localeCompare(String(a.publish_at)))[0];
  // Same order of PRNG draws as the table order below (changing it reshuffles all data).
  const media = seedMedia();
  const comments = seedComments(posts);
  const orders = seedOrders(products);
  const refunded = orders.find((o) => o.status === 'refunded');
  return {
    users,
    posts,
    media,
    comments,
    products,
    orders,
    tickets: seedTickets(users),
    campaigns: seedCampaigns(),
    discounts: [
      { code: 'WELCOME10', percent_off: 10, uses: 412, max_uses: null, expires_at: null, active: true },
      { code: 'SPRING25', percent_off: 25, uses: 88, max_uses: 500, expires_at: '2026-04-30', active: true },
      { code: 'VIP15', percent_off: 15, uses: 37, max_uses: 200, expires_at: null, active: true },
      { code: 'BLACKFRIDAY', percent_off: 30, uses: 1290, max_uses: 1500, expires_at: '2025-11-30', active: false },
    ],
    apiKeys: [
      { id: 1, label: 'Warehouse sync', prefix: 'acme_live_7f3a', scopes: ['read:orders', 'write:orders'], created_at: iso(120) },
      { id: 2, label: 'Analytics export', prefix: 'acme_live_c91d', scopes: ['read:analytics'], created_at: iso(45) },
      { id: 3, label: 'Zapier integration', prefix: 'acme_live_2b66', scopes: ['read:users', 'read:content'], created_at: iso(9) },
    ],
    series: seedSeries(),
    settings: {
      site_name: 'Acme Back Office',
      support_email: 'help@acme.test',
      timezone: 'Europe/Berlin',
      language: 'en',
      theme: 'light',
      maintenance_mode: false,
      beta_features: false,
      notifications: { email: true, push: false, digest: 'weekly' },
    },
    /** @type {{at:string,actor:string,text:string,via?:string}[]} */
    activity: [
      { at: iso(0.1), actor: users.find((u) => u.id === lastPost.author_id)?.name ?? 'System', text: `published “${lastPost.title}”` },
      { at: iso(0.3), actor: 'System', text: 'nightly inventory sync finished' },
      { at: iso(0.8), actor: users[1].name, text: `refunded order #${refunded?.id ?? 1014}` },
      { at: iso(1.2), actor: users[10].name, text: 'solved ticket #510' },
    ],
  };
}

/** The live data. Mutate through the helpers below so views re-render. */
export const db = seed();

/** The signed-in user (Ada, an admin). */
export const currentUser = db.users[0];

/** @type {Set<() => void>} */
const listeners = new Set();
let pending = false;

/** Re-render soon: coalesces many changes in one task into one render. */
export function changed() {
  if (pending) return;
  pending = true;
  queueMicrotask(() => {
    pending = false;
    for (const fn of listeners) fn();
  });
}

/** @param {() => void} fn */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Whether the code now running was started by an agent through WebMCP (set by webmcp.js). */
export const caller = { agent: false };

/**
 * Record an action in the activity log (shown on the dashboard) and schedule a render.
 * @param {string} text
 * @param {string} [actor]
 */
export function log(text, actor = currentUser.name) {
  db.activity.unshift({ at: new Date().toISOString(), actor, text, ...(caller.agent ? { via: 'agent' } : {}) });
  db.activity.length = Math.min(db.activity.length, 50);
  changed();
}

/**
 * @template {{id:number}} T
 * @param {T[]} list
 * @param {number} id
 * @param {string} label e.g. "user"
 * @returns {T}
 */
export function byId(list, id, label) {
  const item = list.find((x) => x.id === id);
  if (!item) throw new Error(`No ${label} with id ${id}`);
  return item;
}

/** @param {{id:number}[]} list */
export function nextId(list) {
  return list.reduce((m, x) => Math.max(m, x.id), 0) + 1;
}

/**
 * @template {{id:number}} T
 * @param {T[]} list
 * @param {number} id
 * @param {string} label
 * @returns {T}
 */
export function removeById(list, id, label) {
  const i = list.findIndex((x) => x.id === id);
  if (i < 0) throw new Error(`No ${label} with id ${id}`);
  const [item] = list.splice(i, 1);
  changed();
  return item;
}

export const money = (/** @type {number} */ n) => round2(n);

/** Days in an analytics range ("7d" -> 7). @param {string} range */
export const rangeDays = (range) => ({ '7d': 7, '30d': 30, '90d': 90 })[range] ?? 30;
