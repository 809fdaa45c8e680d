// Icons of chat management (decorative: the control around them carries the name).

import type { SVGProps } from "react";
import { Icon } from "./icons";

export function MoreIcon(props: SVGProps<SVGSVGElement>) {
  return (
    <Icon className="size-4" {...props}>
      <circle cx="5" cy="12" r="1.2" fill="currentColor" />
      <circle cx="12" cy="12" r="1.2" fill="currentColor" />
      <circle cx="19" cy="12" r="1.2" fill="currentColor" />
    </Icon>
  );
}

export function PinIcon(props: SVGProps<SVGSVGElement>) {
  return (
    <Icon className="size-4" {...props}>
      <path d="M9 4h6l-1 5 3 3v2H7v-2l3-3zM12 14v6" />
    </Icon>
  );
}

export function SearchIcon(props: SVGProps<SVGSVGElement>) {
  return (
    <Icon className="size-4" {...props}>
      <circle cx="11" cy="11" r="6" />
      <path d="m20 20-4.5-4.5" />
    </Icon>
  );
}

export function ListIcon(props: SVGProps<SVGSVGElement>) {
  return (
    <Icon className="size-4" {...props}>
      <path d="M9 6h11M9 12h11M9 18h11M4.5 6h.01M4.5 12h.01M4.5 18h.01" />
    </Icon>
  );
}
