/**
 * The delivery log of one endpoint (`GET /admin/webhooks/{id}/deliveries`): newest first,
 * filtered by status, "Load more" adding the next page (`nextCursor`) under the rows shown.
 * With `idp:webhooks:write`, "Send again" queues a delivery once more, at once and with a new
 * retry window (`POST …/deliveries/{deliveryId}/resend`; 409 while an attempt is in flight),
 * and the row shows the state the API answers.
 */
import { useState } from "react";
import { type Page, describeError } from "../../../api/client";
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
      setSaid({ text: `${more.items.length} more shown.`, error: false });
    } catch (error) {
      setSaid({ text: `The next deliveries could not be loaded. ${describeError(error)}`, error: true });
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
        text: `Event ${delivery.eventType} (${shortEventId(delivery.eventId)}) will be sent again.`,
        error: false,
      });
    } catch (error) {
      setSaid({ text: `Event ${delivery.eventType} could not be sent again. ${describeError(error)}`, error: true });
    } finally {
      setResending(null);
    }
  };

  const columns: Column<Delivery>[] = [
    { header: "Event type", rowHeader: true, cell: (d) => <code>{d.eventType}</code> },
    {
      header: "Event id",
      cell: (d) => (
        <code className="event-id" title={d.eventId}>
          {shortEventId(d.eventId)}
        </code>
      ),
    },
    {
      header: "Status",
      cell: (d) => {
        const tag = statusTag(d.status);
        return <span className={tag.tone === "plain" ? "tag" : `tag ${tag.tone}`}>{tag.text}</span>;
      },
    },
    { header: "Attempts", cell: (d) => String(d.attempts) },
    { header: "Last answer", cell: (d) => lastOutcome(d) },
    { header: "Created", cell: (d) => formatTime(d.createdAt) },
    {
      header: "Delivered / next attempt",
      cell: (d) => {
        const when = whenOf(d);
        return when.at ? `${when.label} ${formatTime(when.at)}` : when.label;
      },
    },
  ];
  if (canWrite) {
    columns.push({
      header: "Actions",
      cell: (d) => (
        <button type="button" className="button" disabled={resending === d.id} onClick={() => void resend(d)}>
          {resending === d.id ? "Sending…" : rowLabel("Send again", `${d.eventType} ${shortEventId(d.eventId)}`)}
        </button>
      ),
    });
  }

  return (
    <div className="deliveries">
      <div className="deliveries-filter">
        <SelectField
          label="Status"
          options={DELIVERY_STATUSES.map((s) => ({ value: s.value, label: s.label }))}
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
          Refresh<span className="visually-hidden"> the delivery log</span>
        </button>
      </div>
      <Loaded state={first.state} reload={first.reload} label="Loading the deliveries…">
        {() =>
          log ? (
            <>
              <DataTable
                caption="Deliveries to this endpoint, newest first"
                columns={columns}
                rows={log.rows}
                rowKey={(d) => d.id}
                empty={status ? "No deliveries with this status." : "No deliveries yet."}
              />
              {log.next ? (
                <div className="pager">
                  <button type="button" className="button" disabled={busyMore} onClick={() => void loadMore()}>
                    {busyMore ? "Loading…" : "Load more"}
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
