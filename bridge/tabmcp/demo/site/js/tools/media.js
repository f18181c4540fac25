// @ts-check
import { db, byId, nextId, removeById, log, changed, MEDIA_TYPES, MEDIA_FOLDERS } from '../store.js';
import { ui, toast } from '../ui.js';
import { navigate } from '../router.js';
import { tool, obj, S, READ, WRITE, IDEMPOTENT, DESTRUCTIVE, onRoute } from './kit.js';

/** @param {import('../store.js').Media} m */
export const mediaSummary = (m) => ({ id: m.id, filename: m.filename, type: m.type, folder: m.folder, size_kb: m.size_kb,
  width: m.width, height: m.height, alt_text: m.alt_text || null });

/** @param {{query?:string,type?:string,folder?:string}} f */
export function filterMedia(f) {
  const q = (f.query ?? '').toLowerCase();
  return db.media.filter((m) => (!f.type || m.type === f.type) && (!f.folder || m.folder === f.folder) &&
    (!q || m.filename.toLowerCase().includes(q) || m.alt_text.toLowerCase().includes(q)));
}

const EXT = /** @type {Record<string,string[]>} */ ({ image: ['jpg', 'jpeg', 'png', 'webp', 'gif', 'svg'], video: ['mp4', 'webm', 'mov'], document: ['pdf', 'docx', 'xlsx', 'pptx', 'txt', 'csv'] });
const FILENAME = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\\.[A-Za-z0-9]{2,5}$';

/** Media editing only makes sense in the library, so the editing tools are scoped to #/media. */
const mediaScope = { routes: onRoute('media') };

/** @param {number} id */
function openInEditor(id) {
  if (ui.route !== 'media' || ui.param !== String(id)) navigate('media', id);
}

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'media_library',
  title: 'Media library',
  description: 'Images, videos and documents used on the site: browse, upload, rename, move, crop, write alt text and delete files.',
  tools: [
    tool({
      name: 'list_media',
      title: 'List media files',
      description: 'List files in the media library, optionally by type, folder, or a text query on filename and alt text.',
      input: obj({ type: S.enum(MEDIA_TYPES, 'Only this kind of file.'), folder: S.enum(MEDIA_FOLDERS, 'Only files in this folder.'), query: S.query('filename and alt text'), limit: S.limit(30) }),
      annotations: READ,
      run: ({ type, folder, query, limit }) => {
        const rows = filterMedia({ type, folder, query });
        return { total: rows.length, files: rows.slice(0, limit).map(mediaSummary) };
      },
    }),
    tool({
      name: 'find_images_missing_alt_text',
      title: 'Find images without alt text',
      description: 'List the images whose alt text is empty, an accessibility problem screen-reader users notice first.',
      annotations: READ,
      run: () => {
        const rows = db.media.filter((m) => m.type === 'image' && !m.alt_text.trim());
        return { total: rows.length, images: rows.map(mediaSummary) };
      },
    }),
    tool({
      name: 'upload_media',
      title: 'Upload a file',
      description: 'Add a file to the media library (simulated upload: the file gets a placeholder preview). The extension must match the type.',
      input: obj({
        filename: S.str('File name with extension, e.g. "summer-sale.jpg".', { pattern: FILENAME }),
        type: S.enum(MEDIA_TYPES, 'Kind of file.'),
        folder: S.enum(MEDIA_FOLDERS, 'Destination folder (default "Uploads").'),
        size_kb: S.int('File size in kilobytes (default 512).', { minimum: 1, maximum: 512000 }),
        alt_text: S.str('Alt text describing an image for screen readers.', { maxLength: 250 }),
      }, ['filename', 'type']),
      annotations: WRITE,
      run: ({ filename, type, folder = 'Uploads', size_kb = 512, alt_text = '' }) => {
        const ext = filename.split('.').pop().toLowerCase();
        if (!EXT[type].includes(ext)) throw new Error(`A ${type} must end in ${EXT[type].map((e) => '.' + e).join(', ')}; got "${filename}"`);
        if (db.media.some((m) => m.filename === filename)) throw new Error(`A file named ${filename} already exists`);
        const m = { id: nextId(db.media), filename, type, folder, size_kb, width: type === 'document' ? null : 1600, height: type === 'document' ? null : 900,
          alt_text, hue: (db.media.length * 47) % 360, uploaded_at: new Date().toISOString() };
        db.media.push(m);
        log(`uploaded ${filename} to ${folder}`);
        toast(`${filename} uploaded to ${folder}.`, { title: 'Upload complete' });
        return { created: mediaSummary(m) };
      },
    }),
    tool({
      name: 'rename_media',
      title: 'Rename a file',
      description: 'Give a media file a new name. Keep the same extension; links on the site are updated automatically.',
      input: obj({ id: S.id('media file'), filename: S.str('New file name with extension.', { pattern: FILENAME }) }, ['id', 'filename']),
      annotations: IDEMPOTENT,
      scope: mediaScope,
      run: ({ id, filename }) => {
        const m = byId(db.media, id, 'media file');
        const oldExt = m.filename.split('.').pop();
        if (filename.split('.').pop().toLowerCase() !== String(oldExt).toLowerCase()) throw new Error(`Keep the extension .${oldExt} when renaming ${m.filename}`);
        if (db.media.some((x) => x.filename === filename && x.id !== id)) throw new Error(`A file named ${filename} already exists`);
        const before = m.filename;
        m.filename = filename;
        openInEditor(id);
        log(`renamed ${before} to ${filename}`);
        toast(`Renamed to ${filename}.`);
        return { updated: mediaSummary(m) };
      },
    }),
    tool({
      name: 'set_media_alt_text',
      title: 'Write alt text',
      description: 'Set the alt text of an image: a short description of what it shows, read aloud by screen readers.',
      input: obj({ id: S.id('image'), alt_text: S.str('What the image shows, in one sentence.', { minLength: 1, maxLength: 250 }) }, ['id', 'alt_text']),
      annotations: IDEMPOTENT,
      scope: mediaScope,
      run: ({ id, alt_text }) => {
        const m = byId(db.media, id, 'media file');
        if (m.type !== 'image') throw new Error(`${m.filename} is a ${m.type}; alt text is only for images`);
        m.alt_text = alt_text;
        openInEditor(id);
        log(`wrote alt text for ${m.filename}`);
        toast(`Alt text saved for ${m.filename}.`);
        return { updated: mediaSummary(m) };
      },
    }),
    tool({
      name: 'crop_image',
      title: 'Crop an image',
      description: 'Crop an image to a new size in pixels (centred). The new size cannot be larger than the current one.',
      input: obj({ id: S.id('image'), width: S.int('New width in pixels.', { minimum: 16, maximum: 8000 }), height: S.int('New height in pixels.', { minimum: 16, maximum: 8000 }) }, ['id', 'width', 'height']),
      annotations: WRITE,
      scope: { ...mediaScope, dangerLevel: 'moderate' },
      run: ({ id, width, height }) => {
        const m = byId(db.media, id, 'media file');
        if (m.type !== 'image') throw new Error(`${m.filename} is a ${m.type}; only images can be cropped`);
        if (width > (m.width ?? 0) || height > (m.height ?? 0)) throw new Error(`Crop ${width}×${height} is larger than the image (${m.width}×${m.height})`);
        const before = `${m.width}×${m.height}`;
        m.width = width;
        m.height = height;
        m.size_kb = Math.max(8, Math.round(m.size_kb * 0.8));
        openInEditor(id);
        log(`cropped ${m.filename} from ${before} to ${width}×${height}`);
        toast(`${m.filename} cropped to ${width}×${height}.`);
        return { updated: mediaSummary(m), previous_size: before };
      },
    }),
    tool({
      name: 'move_media',
      title: 'Move a file to a folder',
      description: 'Move a media file to another folder of the library.',
      input: obj({ id: S.id('media file'), folder: S.enum(MEDIA_FOLDERS, 'Destination folder.') }, ['id', 'folder']),
      annotations: IDEMPOTENT,
      scope: mediaScope,
      run: ({ id, folder }) => {
        const m = byId(db.media, id, 'media file');
        m.folder = folder;
        changed();
        log(`moved ${m.filename} to ${folder}`);
        toast(`${m.filename} moved to ${folder}.`);
        return { updated: mediaSummary(m) };
      },
    }),
    tool({
      name: 'delete_media',
      title: 'Delete a file',
      description: 'Permanently delete a media file. Pages that embed it will show a broken image. Cannot be undone.',
      input: obj({ id: S.id('media file') }, ['id']),
      annotations: DESTRUCTIVE,
      scope: { dangerLevel: 'destructive' },
      run: ({ id }) => {
        const m = removeById(db.media, id, 'media file');
        if (ui.route === 'media' && ui.param === String(id)) navigate('media');
        log(`deleted ${m.filename}`);
        toast(`${m.filename} was deleted.`, { kind: 'warning', title: 'File deleted' });
        return { deleted: mediaSummary(m) };
      },
    }),
  ],
};
