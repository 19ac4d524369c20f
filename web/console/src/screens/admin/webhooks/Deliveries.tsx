/**
 * The delivery log of one endpoint (`GET /admin/webhooks/{id}/deliveries`): newest first,
 * filtered by status, "Load more" adding the next page (`nextCursor`) under the rows shown.
 * With `idp:webhooks:write`, "Send again" queues a delivery once more, at once and with a new
 * retry window (`POST …/deliveries/{deliveryId}/resend`; 409 while an attempt is in flight),
 * and the row shows the state the API answers.
 */
import { useState } from "react";
import { type Page, describeError } from "../../../api/client";
import { intl, t } from "../../../i18n";
import { Loaded, useLoad } from "../../../ui/load";
import { type Column, DataTable, Notice, formatTime, rowLabel } from "../../../ui/table";
import { SelectField } from "../../../ui/form";
import {
  DELIVERY_STATUSES,
  type Delivery,
  type DeliveryStatus,
  appendPage,
  lastOutcome,
  listDeliveries,
  replaceRow,
  resendDelivery,
  shortEventId,
  statusTag,
  whenOf,
} from "./model";

/** The rows shown and the cursor of the next page, grown from one first page. */
interface Log {
  base: Page<Delivery>;
  rows: Delivery[];
  next: string | null;
}

const logOf = (base: Page<Delivery>): Log => ({ base, rows: base.items, next: base.nextCursor });

export function Deliveries({ endpointId, canWrite }: { endpointId: string; canWrite: boolean }) {
  const [status, setStatus] = useState<"" | DeliveryStatus>("");
  const [round, setRound] = useState(0);
  const first = useLoad(
    (signal) => listDeliveries(endpointId, status, null, signal),
    [endpointId, status, round],
  );
  const page = first.state.status === "ready" ? first.state.data : null;
  const [grown, setGrown] = useState<Log | null>(null);
  // "Load more" and "Send again" change the log of this first page; a new first page
  // (another filter, "Refresh") starts over.
  const log = page ? (grown && grown.base === page ? grown : logOf(page)) : null;
  const [busyMore, setBusyMore] = useState(false);
  const [resending, setResending] = useState<string | null>(null);
  const [said, setSaid] = useState<{ text: string; error: boolean } | null>(null);

  const loadMore = async (): Promise<void> => {
    if (!log?.next) return;
    setBusyMore(true);
    setSaid(null);
    try {
      const more = await listDeliveries(endpointId, status, log.next);
      setGrown({ base: log.base, rows: appendPage(log.rows, more.items), next: more.nextCursor });
      setSaid({ text: t("admin-ops.webhooks.log.more", { count: more.items.length }), error: false });
    } catch (error) {
      setSaid({ text: t("admin-ops.webhooks.log.moreFailed", { why: describeError(error) }), error: true });
    } finally {
      setBusyMore(false);
    }
  };

  const resend = async (delivery: Delivery): Promise<void> => {
    if (!page) return;
    setResending(delivery.id);
    setSaid(null);
    try {
      const queued = await resendDelivery(endpointId, delivery.id);
      setGrown((previous) => {
        const current = previous && previous.base === page ? previous : logOf(page);
        return { ...current, rows: replaceRow(current.rows, queued) };
      });
      setSaid({
        text: t("admin-ops.webhooks.log.resent", { type: delivery.eventType, id: shortEventId(delivery.eventId) }),
        error: false,
      });
    } catch (error) {
      setSaid({
        text: t("admin-ops.webhooks.log.resendFailed", { type: delivery.eventType, why: describeError(error) }),
        error: true,
      });
    } finally {
      setResending(null);
    }
  };

  const columns: Column<Delivery>[] = [
    { header: t("admin-ops.webhooks.log.type"), rowHeader: true, cell: (d) => <code>{d.eventType}</code> },
    {
      header: t("admin-ops.webhooks.log.id"),
      cell: (d) => (
        <code className="event-id" title={d.eventId}>
          {shortEventId(d.eventId)}
        </code>
      ),
    },
    {
      header: t("admin-ops.webhooks.status"),
      cell: (d) => {
        const tag = statusTag(d.status);
        return <span className={tag.tone === "plain" ? "tag" : `tag ${tag.tone}`}>{tag.text}</span>;
      },
    },
    { header: t("admin-ops.webhooks.log.attempts"), cell: (d) => intl().formatNumber(d.attempts) },
    { header: t("admin-ops.webhooks.log.last"), cell: (d) => lastOutcome(d) },
    { header: t("admin-ops.webhooks.createdAt"), cell: (d) => formatTime(d.createdAt) },
    {
      header: t("admin-ops.webhooks.log.when"),
      cell: (d) => {
        const when = whenOf(d);
        return when.at ? t("admin-ops.webhooks.log.whenAt", { label: when.label, at: formatTime(when.at) }) : when.label;
      },
    },
  ];
  if (canWrite) {
    columns.push({
      header: t("admin-ops.webhooks.log.actions"),
      cell: (d) => (
        <button type="button" className="button" disabled={resending === d.id} onClick={() => void resend(d)}>
          {resending === d.id
            ? t("admin-ops.webhooks.log.sending")
            : rowLabel(t("admin-ops.webhooks.log.resend"), `${d.eventType} ${shortEventId(d.eventId)}`)}
        </button>
      ),
    });
  }

  return (
    <div className="deliveries">
      <div className="deliveries-filter">
        <SelectField
          label={t("admin-ops.webhooks.status")}
          options={DELIVERY_STATUSES.map((s) => ({ value: s.value, label: s.label() }))}
          value={status}
          onChange={(event) => {
            setStatus(event.currentTarget.value as "" | DeliveryStatus);
            setSaid(null);
          }}
        />
        <button
          type="button"
          className="button"
          onClick={() => {
            setSaid(null);
            setRound((n) => n + 1);
          }}
        >
          {t("admin-ops.webhooks.log.refresh")}
          <span className="visually-hidden"> {t("admin-ops.webhooks.log.refresh.what")}</span>
        </button>
      </div>
      <Loaded state={first.state} reload={first.reload} label={t("admin-ops.webhooks.log.loading")}>
        {() =>
          log ? (
            <>
              <DataTable
                caption={t("admin-ops.webhooks.log.caption")}
                columns={columns}
                rows={log.rows}
                rowKey={(d) => d.id}
                empty={status ? t("admin-ops.webhooks.log.noneWithStatus") : t("admin-ops.webhooks.log.none")}
              />
              {log.next ? (
                <div className="pager">
                  <button type="button" className="button" disabled={busyMore} onClick={() => void loadMore()}>
                    {busyMore ? t("admin-ops.webhooks.log.loadingMore") : t("admin-ops.webhooks.log.loadMore")}
                  </button>
                </div>
              ) : null}
            </>
          ) : null
        }
      </Loaded>
      {said?.error ? (
        <p className="form-errors" role="alert">
          {said.text}
        </p>
      ) : null}
      {said && !said.error ? <Notice>{said.text}</Notice> : null}
    </div>
  );
}
