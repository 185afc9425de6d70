import type { AnchorRecord, AssetRecord, RangeRecord, WebsiteRecord, WorkstreamSummaryRecord } from '../records.js';
import type { Anchor, Asset, Range, Website, WorkstreamSummary } from '../wire.js';
import { withLinks } from './links.js';
import { idList, type RenderOptions, renderFragment } from './lists.js';

export function renderAnchor(record: AnchorRecord): Anchor {
  const { conversations, fullpath, platform, point, ...fields } = record;
  const reference = { id: point, created: record.created, updated: record.updated, fullpath, anchor: { id: record.id } };
  return withLinks<Anchor>('anchors', record, {
    ...fields,
    points: { iterable: [{ id: point, reference: platform ? { ...reference, platform } : reference }] },
    conversations: idList(conversations),
  });
}

/** An asset with its one format; the format's fragment is its transferable content. */
export function renderAsset(record: AssetRecord, options: RenderOptions): Asset {
  const { conversations, content, format, application = {}, ...fields } = record;
  const raw = content?.string?.raw ?? '';
  const fragment = renderFragment(content, options);
  return withLinks<Asset>('assets', record, {
    ...fields,
    formats: {
      iterable: [
        {
          id: format,
          creator: record.creator,
          created: record.created,
          updated: record.updated,
          classification: { generic: 'TEXT' },
          role: 'BOTH',
          application,
          asset: { id: record.id },
          bytes: { value: Buffer.byteLength(raw) },
          ...(fragment ? { fragment } : {}),
        },
      ],
    },
    preview: { base: { id: format } },
    original: { id: format },
    conversations: idList(conversations),
  });
}

export function renderWebsite(record: WebsiteRecord): Website {
  return withLinks<Website>('websites', record, { ...record, conversations: idList(record.conversations) });
}

export function renderWorkstreamSummary(record: WorkstreamSummaryRecord): WorkstreamSummary {
  return withLinks<WorkstreamSummary>('workstreamSummaries', record, { ...record, conversations: idList(record.conversations) });
}

export function renderRange(record: RangeRecord): Range {
  return withLinks<Range>('ranges', record, { ...record, conversations: idList(record.conversations) });
}
