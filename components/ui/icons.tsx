// Small line icons (16px, currentColor) in the spirit of VS Code's codicons.

type IconProps = { size?: number };

function Svg({ size = 16, children }: IconProps & { children: React.ReactNode }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden
    >
      {children}
    </svg>
  );
}

export const NewFileIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M9.5 1.5h-6v13h9v-10z M9.5 1.5v3h3" />
    <path d="M8 7.5v5 M5.5 10h5" />
  </Svg>
);

export const NewFolderIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M1.5 3.5h4.5l1.5 1.5h7v8.5h-13z" />
    <path d="M8 7v4.5 M5.75 9.25h4.5" />
  </Svg>
);

export const RefreshIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M13 8a5 5 0 1 1-1.6-3.7 M13 2.5v2.5h-2.5" />
  </Svg>
);

export const CollapseIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M2.5 2.5h11v11h-11z M5.5 8h5" />
  </Svg>
);

export const EyeIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M1.5 8s2.5-4.5 6.5-4.5 6.5 4.5 6.5 4.5-2.5 4.5-6.5 4.5S1.5 8 1.5 8z" />
    <circle cx="8" cy="8" r="2" />
  </Svg>
);

export const PlusIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 3v10 M3 8h10" />
  </Svg>
);

export const CloseIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 4l8 8 M12 4l-8 8" />
  </Svg>
);

export const GearIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="8" cy="8" r="2" />
    <path d="M8 1.5v1.7 M8 12.8v1.7 M1.5 8h1.7 M12.8 8h1.7 M3.4 3.4l1.2 1.2 M11.4 11.4l1.2 1.2 M3.4 12.6l1.2-1.2 M11.4 4.6l1.2-1.2" />
    <circle cx="8" cy="8" r="4.3" />
  </Svg>
);

export const MinusIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M3 8h10" />
  </Svg>
);

export const DiscardIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M3.5 6.5h6.5a3.5 3.5 0 0 1 0 7h-3 M6 4l-2.5 2.5 2.5 2.5" />
  </Svg>
);

export const OpenFileIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M9.5 1.5h-6v13h9v-10z M9.5 1.5v3h3" />
    <path d="M6 11l4-4 M7 7h3v3" />
  </Svg>
);

export const BellIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 11V7a4 4 0 0 1 8 0v4l1.2 1.5H2.8z M6.5 14h3" />
  </Svg>
);
